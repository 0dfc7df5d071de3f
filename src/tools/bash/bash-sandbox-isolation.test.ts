import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { protectedFamilies } from '../../core/protected-paths.ts';
import { buildRules, createReadDenyCheck } from '../../permissions/index.ts';
import { hiddenPathsFor } from '../shared/process/hidden-paths.ts';
import {
  buildSandboxInvocation,
  placeholderGraceMs,
  probeSandbox,
  coveredWorkspaceEntries,
  sandboxTmpKey,
} from '../shared/process/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;
const sandboxModule = fileURLToPath(new URL('../shared/process/sandbox.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));

function gitStatus(cwd: string): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored'], {
    cwd,
    encoding: 'utf8',
  });
}

/** Entries of `directory` that are not empty directories. */
function nonEmptyEntries(directory: string): string[] {
  return readdirSync(directory).filter((name) => {
    const info = lstatSync(join(directory, name));
    return !info.isDirectory() || readdirSync(join(directory, name)).length > 0;
  });
}

describe.skipIf(!availability.available)(`Sandbox isolation${skipReason}`, () => {
  const bash = createBashTool({ sandbox: 'required', killGraceMs: 200 });
  const projects: ShellProject[] = [];
  const make = (): ShellProject => {
    const project = makeShellProject();
    projects.push(project);
    return project;
  };
  afterEach(async () => {
    for (const project of projects.splice(0)) await project.cleanup();
  });
  const run = async (project: ShellProject, command: string) =>
    (await callTool<ShellOutput>(bash, { command }, project.context)).result.data;

  it('leaves nothing in the repository after a call: protected names were covered, then removed', async () => {
    const project = make();
    execFileSync('git', ['init', '-q'], { cwd: project.root });
    const before = readdirSync(project.root).sort();
    const attempt = await run(
      project,
      coveredWorkspaceEntries
        .map((name) => `mkdir -p ${name}/x 2>/dev/null || echo blocked ${name}`)
        .join('; '),
    );
    // Every protected name was covered during the call.
    expect(attempt.stdout.trim().split('\n')).toHaveLength(coveredWorkspaceEntries.length);
    // Empty covers stay for a short grace period (the next call reuses them), invisible to git.
    expect(gitStatus(project.root)).toBe('');
    expect(nonEmptyEntries(project.root)).toEqual(['.git']);
    await new Promise((resolve) => setTimeout(resolve, placeholderGraceMs + 300));
    expect(readdirSync(project.root).sort()).toEqual(before);
    expect(gitStatus(project.root)).toBe('');
  });

  it('leaves nothing git can see when efferent is killed mid-call', async () => {
    const project = make();
    execFileSync('git', ['init', '-q'], { cwd: project.root });
    writeFileSync(join(project.root, 'tracked.txt'), 'x\n');
    execFileSync('git', ['add', '.'], { cwd: project.root });
    execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', 'commit', '-qm', 'one'], {
      cwd: project.root,
    });
    const script = join(project.home, 'hold.ts');
    writeFileSync(
      script,
      [
        `import { spawn } from 'node:child_process';`,
        `import { buildSandboxInvocation } from ${JSON.stringify(sandboxModule)};`,
        `const root = process.argv[2];`,
        `const sandbox = buildSandboxInvocation({ writableDirectories: [root], sessionDirectory: process.argv[3], homeDirectory: process.argv[4], allowNetwork: false }, root, ['sleep', '30']);`,
        `spawn(sandbox.file, sandbox.args, { stdio: ['ignore', 'inherit', 'inherit', ...sandbox.inheritedFds] });`,
        `setTimeout(() => console.log('ready'), 300);`,
      ].join('\n'),
    );
    const child = spawn(tsx, [script, project.root, project.context.run.sessionDir, project.home], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
    // While the call runs, the covers exist; git sees none of them.
    expect(gitStatus(project.root)).toBe('');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(gitStatus(project.root)).toBe('');
    // What a crash can leave is empty folders only, which git ignores and nothing reads.
    expect(nonEmptyEntries(project.root).sort()).toEqual(['.git', 'tracked.txt']);
    // The next call covers them again; the command still cannot fill them.
    const again = await run(project, 'echo "{}" > .claude/settings.json');
    expect(again.exitCode).not.toBe(0);
  });

  it('gives commands no capabilities, so read-only mounts stay read-only even when efferent runs as root', async () => {
    const project = make();
    const outside = mkdtempSync('/var/tmp/efferent-caps-');
    try {
      const attempt = await run(
        project,
        `mount -o remount,rw / 2>/dev/null; mount -o remount,rw ${outside} 2>/dev/null; umount /tmp 2>/dev/null; touch ${outside}/escaped; grep CapEff /proc/self/status`,
      );
      expect(attempt.stdout).toContain('CapEff:\t0000000000000000');
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('keeps every protected family read-only where it exists at the project root, and ordinary files writable', async () => {
    const project = make();
    // One or two entries of every family, generated from the engine's own table, plus pattern and
    // case spellings; each is made present, then a command tries to change it.
    const files = new Set<string>(['mise.local.toml', 'project.code-workspace', 'Claude.md', 'AGENTS.MD']);
    const directories = new Set<string>();
    for (const family of protectedFamilies) {
      for (const name of (family.files ?? []).slice(0, 2)) files.add(name);
      for (const name of (family.directories ?? []).slice(0, 1)) directories.add(name);
      for (const nested of family.nested ?? []) (/\.[a-z]+$/.test(nested) ? files : directories).add(nested);
    }
    // Names differing only in case are one file on case-folding systems, two here: keep the first.
    const seen = new Set<string>();
    const unique = (names: Set<string>) =>
      [...names].filter((name) => !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()));
    const fileList = unique(files);
    const directoryList = unique(directories);
    for (const name of fileList) {
      mkdirSync(dirname(join(project.root, name)), { recursive: true });
      writeFileSync(join(project.root, name), 'trusted\n');
    }
    for (const name of directoryList) {
      mkdirSync(join(project.root, name), { recursive: true });
      writeFileSync(join(project.root, name, 'config'), 'trusted\n');
    }
    const attempts = [
      ...fileList.map((name) => `echo evil >> '${name}' 2>/dev/null && echo "changed ${name}"`),
      ...directoryList.map(
        (name) =>
          `{ echo evil >> '${name}/config' || echo evil > '${name}/new'; } 2>/dev/null && echo "changed ${name}"`,
      ),
      'echo fine > ordinary.txt && echo "wrote ordinary"',
    ];
    const result = await run(project, attempts.join('; '));
    expect(result.stdout.trim().split('\n')).toEqual(['wrote ordinary']);
    for (const name of fileList) expect(readFileSync(join(project.root, name), 'utf8')).toBe('trusted\n');
    for (const name of directoryList) {
      expect(readFileSync(join(project.root, name, 'config'), 'utf8')).toBe('trusted\n');
      expect(existsSync(join(project.root, name, 'new'))).toBe(false);
    }
    expect(readFileSync(join(project.root, 'ordinary.txt'), 'utf8')).toBe('fine\n');
  });

  it("gives each session its own /tmp, kept across the session's calls and removed at dispose", async () => {
    const first = make();
    const second = make();
    const name = `efferent-private-${process.pid}-${Date.now()}`;
    expect((await run(first, `echo kept > /tmp/${name}`)).exitCode).toBe(0);
    expect((await run(first, `cat /tmp/${name}`)).stdout).toBe('kept\n');
    // Not the host's /tmp, and not another session's.
    expect(existsSync(join('/tmp', name))).toBe(false);
    expect((await run(second, `cat /tmp/${name}`)).exitCode).not.toBe(0);
    const hostFile = join(tmpdir(), `${name}-host`);
    writeFileSync(hostFile, 'host\n');
    try {
      expect((await run(first, `cat ${hostFile}`)).exitCode).not.toBe(0);
    } finally {
      execFileSync('rm', ['-f', hostFile]);
    }
    const directory = first.context.run.resources?.peek(sandboxTmpKey)?.path;
    expect(directory && existsSync(join(directory, name))).toBe(true);
    // A command can leave folders it made unreadable; dispose still removes everything.
    await run(first, 'mkdir -p /tmp/locked/inner && chmod 000 /tmp/locked');
    await first.context.run.resources?.dispose();
    expect(existsSync(directory as string)).toBe(false);
  });
});

describe.skipIf(!availability.available)(`Read deny rules inside the sandbox${skipReason}`, () => {
  const projects: ShellProject[] = [];
  afterEach(async () => {
    for (const project of projects.splice(0)) await project.cleanup();
  });

  function projectWithRules(deny: string[]): ShellProject {
    const base = makeShellProject();
    projects.push(base);
    const origin = { source: 'projectSettings' as const, origin: 'settings.json', root: base.root };
    const isReadDenied = createReadDenyCheck({
      rules: { allow: [], ask: [], deny: buildRules(deny, 'deny', origin).rules },
      home: base.home,
    });
    const context = createToolUseContext({
      cwd: base.root,
      sessionDir: base.context.run.sessionDir,
      env: base.context.run.env,
      ...(isReadDenied ? { isReadDenied } : {}),
    });
    base.context = context;
    writeFileSync(join(base.root, '.env'), 'API_KEY=top-secret\n');
    mkdirSync(join(base.root, 'secrets'));
    writeFileSync(join(base.root, 'secrets', 'key.pem'), 'top-secret pem\n');
    mkdirSync(join(base.home, '.ssh'));
    writeFileSync(join(base.home, '.ssh', 'id_ed25519'), 'top-secret ssh\n');
    writeFileSync(join(base.root, 'readme.md'), 'public\n');
    return base;
  }

  it('hides a denied file from the sandbox wrapper itself, whatever the engine decided', () => {
    const project = projectWithRules(['Read(./.env)']);
    const root = project.root;
    const hiddenPaths = hiddenPathsFor(project.context);
    expect(hiddenPaths).toEqual([realpathSync(join(root, '.env'))]);
    const sandbox = buildSandboxInvocation(
      {
        writableDirectories: [root],
        sessionDirectory: project.context.run.sessionDir,
        homeDirectory: project.home,
        allowNetwork: false,
        hiddenPaths,
      },
      root,
      ['bash', '-c', 'cat .env'],
    );
    try {
      const result = spawnSync(sandbox.file, sandbox.args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', ...sandbox.inheritedFds],
      });
      expect(result.status).not.toBe(0);
      expect(result.stdout).not.toContain('top-secret');
      expect(result.stderr).toMatch(/Permission denied/);
    } finally {
      sandbox.cleanup();
    }
  });

  // Generated: rule shapes x ways of naming the file that an engine looking at words cannot see.
  const rules = [
    { rule: 'Read(./.env)', file: '.env' },
    { rule: 'Read(**/.env)', file: '.env' },
    { rule: 'Read(./secrets/**)', file: 'secrets/key.pem' },
    { rule: 'Read(~/.ssh/**)', file: '~/.ssh/id_ed25519' },
  ];
  const readers = [
    (file: string) => `cat ${file}`,
    (file: string) => `f=${file}; cat "$f"`,
    (file: string) => `cat "$(printf '%s' ${file})"`,
    (file: string) => `ln -sf ${file} /tmp/alias && cat /tmp/alias`,
    (file: string) => `cp ${file} /tmp/copy && cat /tmp/copy`,
    (file: string) =>
      `python3 -c "import os,sys; print(open(os.path.expanduser(sys.argv[1])).read())" ${file}`,
    (file: string) => `tar cf - ${file} 2>/dev/null | tar xOf -`,
    (file: string) => `base64 ${file} | base64 -d`,
  ];
  const bash = createBashTool({ sandbox: 'required' });
  // One sandboxed call per rule runs every reader (each output after its own marker line), then
  // reads a file the rule does not cover.
  it.each(rules)('$rule: no way of naming the file shows the secret', async ({ rule, file }) => {
    const project = projectWithRules([rule]);
    const command = [
      ...readers.map((reader, index) => `echo "--- reader ${index}"; ${reader(file)}`),
      'echo "--- readme"; cat readme.md',
    ].join('\n');
    const { result } = await callTool<ShellOutput>(bash, { command }, project.context);
    const sections = result.data.stdout.split(/^--- /m).slice(1);
    expect(sections.map((section) => section.split('\n')[0])).toEqual([
      ...readers.map((_, index) => `reader ${index}`),
      'readme',
    ]);
    for (const [index, reader] of readers.entries())
      expect(sections[index], reader(file)).not.toContain('top-secret');
    // Files the rules do not cover stay readable.
    expect(sections.at(-1)).toBe('readme\npublic\n');
  });
});
