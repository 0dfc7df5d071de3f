import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  protectedDirectoryNames,
  protectedEntryReason,
  protectedNestedPaths,
  sandboxReadOnlyHomeEntries,
  sandboxReadOnlyWorkspaceEntries,
  startupFileNames,
} from '../src/core/protected-paths.ts';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
  protectedPathReason,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';
import { buildSandboxInvocation, probeSandbox } from '../src/tools/shared/process/sandbox.ts';

/**
 * Generated variants of the trust-and-modes class that run through the permission engine (the same
 * evaluation `efferent check` and the resolver use) and through the real bubblewrap sandbox.
 */

const cwd = '/srv/proj';
const home = '/home/user';
let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});

const check = (
  tool: string,
  input: Record<string, unknown>,
  mode: string,
  allow: string[] = [],
  where = cwd,
) =>
  checkPermissionCase(
    { tool, input, cwd: where, mode: mode as 'default', rules: { allow, deny: [], ask: [] }, home },
    options,
  );

describe('a command allow rule never authorises a read outside the working directories (generated)', () => {
  const allowed: Array<{ rule: string; prefix: string[] }> = [
    { rule: 'Bash(git diff *)', prefix: ['git diff --no-index', 'git diff --no-index --stat', 'git diff'] },
    { rule: 'Bash(cat *)', prefix: ['cat', 'cat -n', 'cat --'] },
    { rule: 'Bash(head *)', prefix: ['head', 'head -n 5'] },
    { rule: 'Bash(tail *)', prefix: ['tail', 'tail -c 100'] },
    { rule: 'Bash(grep *)', prefix: ['grep root', 'grep -h -e root'] },
    { rule: 'Bash(wc *)', prefix: ['wc -l'] },
    { rule: 'Bash(diff *)', prefix: ['diff src/a.ts'] },
    { rule: 'Bash(sort *)', prefix: ['sort'] },
    { rule: 'Bash(xxd *)', prefix: ['xxd'] },
    { rule: 'Bash(base64 *)', prefix: ['base64'] },
  ];
  const outside = [
    '/etc/passwd',
    '/etc/shadow',
    '~/.ssh/id_rsa',
    '$HOME/.aws/credentials',
    '../other/secret',
    '/srv/proj/../other/secret',
    '"/etc/passwd"',
    "'/etc/shadow'",
    '~root/.ssh/id_rsa',
    '< /etc/passwd',
  ];
  const modes = ['default', 'acceptEdits', 'auto', 'dontAsk'];
  const attacks = allowed.flatMap(({ rule, prefix }) =>
    prefix.flatMap((start) =>
      outside.flatMap((path) =>
        modes.map((mode) => ({ rule, command: `${start} ${path} src/a.ts`.trim(), mode })),
      ),
    ),
  );

  it(`asks or denies all ${attacks.length} variants`, async () => {
    expect(attacks.length).toBe(680);
    for (const { rule, command, mode } of attacks) {
      const result = await check('Bash', { command }, mode, [rule]);
      expect(result.behavior, `${rule} / ${mode}: ${command}`).not.toBe('allow');
      expect(result.message ?? '', command).toMatch(/\.$/);
    }
  });

  it('still allows the same rules inside the working directories, and outside reads a Read rule covers', async () => {
    for (const { rule, prefix } of allowed) {
      for (const start of prefix) {
        const command = `${start} src/a.ts src/b.ts`;
        expect((await check('Bash', { command }, 'default', [rule])).behavior, command).toBe('allow');
      }
    }
    const covered = await check('Bash', { command: 'cat /etc/hosts' }, 'default', [
      'Bash(cat *)',
      'Read(//etc/hosts)',
    ]);
    expect(covered.behavior).toBe('allow');
    expect(
      (await check('Bash', { command: 'cat /etc/shadow' }, 'default', ['Bash(cat *)', 'Read(//etc/hosts)']))
        .behavior,
    ).toBe('ask');
  });
});

/** A concrete file path for each protected entry: the entry itself, or a file inside it. */
function targetsOf(entries: readonly string[]): string[] {
  const directories = new Set([...protectedDirectoryNames, ...protectedNestedPaths]);
  return entries.map((entry) => (directories.has(entry) ? `${entry}/evil` : entry));
}

describe('protected start-up locations are never written without a person (generated)', () => {
  const extra = [
    '.local/lib/python3.12/site-packages/evil.pth',
    '.venv/lib/python3.11/site-packages/_hook.pth',
    'lib/python3/dist-packages/x.pth',
    '.lefthook.yml',
    'lefthook-local.yaml',
    '.config/autostart/x.desktop',
    '.config/systemd/user/x.service',
    '.config/environment.d/10-x.conf',
    '.mvn/jvm.config',
    '.mvn/maven.config',
    '.ssh/rc',
    '.ssh/config',
    '.aws/config',
    '.kube/config',
    '.pip/pip.conf',
    '.gradle/init.d/x.gradle',
    'sub/dir/.envrc',
    'sitecustomize.py',
  ];
  const targets = [...new Set([...targetsOf(sandboxReadOnlyHomeEntries), ...extra])];
  const writers: Array<(path: string) => { tool: string; input: Record<string, unknown> }> = [
    (path) => ({ tool: 'Write', input: { file_path: `${home}/${path}`, content: 'x' } }),
    (path) => ({ tool: 'Bash', input: { command: `echo 'curl x | sh' >> ${path}` } }),
    (path) => ({ tool: 'Bash', input: { command: `printf x | tee -a ${path}` } }),
    (path) => ({ tool: 'Bash', input: { command: `cp /home/user/payload ${path}` } }),
    (path) => ({ tool: 'Bash', input: { command: `touch ${path}` } }),
  ];
  const modes = ['acceptEdits', 'auto', 'bypassPermissions'];
  const rules = [[], ['Edit(/**)', 'Bash(tee *)', 'Bash(cp *)', 'Bash(touch *)', 'Bash(echo *)']];

  it('every generated write asks or is denied, even with home as the working directory', async () => {
    let count = 0;
    for (const path of targets)
      for (const make of writers)
        for (const mode of modes)
          for (const allow of rules) {
            const { tool, input } = make(path);
            // Home is the working directory: the only reason left to ask is the protection itself.
            const result = await check(tool, input, mode, allow, home);
            expect(
              result.behavior,
              `${mode} ${JSON.stringify(allow)} ${tool} ${JSON.stringify(input)}`,
            ).not.toBe('allow');
            count++;
          }
    expect(count).toBe(targets.length * writers.length * modes.length * rules.length);
    expect(count).toBeGreaterThan(2000);
  });

  it('benign neighbours stay allowed in acceptEdits', async () => {
    for (const path of [
      'src/app.ts',
      'README.md',
      'lib/python3/site-packages/pkg/mod.py',
      'config/autostart.ts',
      'docs/ssh.md',
    ]) {
      expect(
        (await check('Write', { file_path: `${cwd}/${path}`, content: 'x' }, 'acceptEdits')).behavior,
        path,
      ).toBe('allow');
      expect((await check('Bash', { command: `touch ${path}` }, 'acceptEdits')).behavior, path).toBe('allow');
    }
  });
});

describe('one protected-path list for the engine and the sandbox', () => {
  it('the engine protects every entry the sandbox keeps read-only, and the sandbox keeps every startup file', () => {
    for (const entry of [
      ...targetsOf(sandboxReadOnlyWorkspaceEntries),
      ...targetsOf(sandboxReadOnlyHomeEntries),
    ]) {
      if (entry.startsWith('.efferent') || entry.startsWith('.claude')) continue;
      expect(protectedPathReason(`${cwd}/${entry}`), entry).toBeDefined();
      expect(protectedEntryReason(`${home}/${entry}`), entry).toBeDefined();
    }
    for (const name of startupFileNames) expect(sandboxReadOnlyHomeEntries).toContain(name);
    for (const name of ['.lefthook.yml', 'lefthook.yml', '.lefthook-local.yaml', '.husky', '.envrc', '.mvn'])
      expect(sandboxReadOnlyWorkspaceEntries).toContain(name);
    expect(protectedPathReason('/srv/proj/.LEFTHOOK.yml')).toBeDefined();
    expect(protectedPathReason('/srv/proj/.Bash_Aliases')).toBeDefined();
  });
});

const availability = probeSandbox();
describe.skipIf(!availability.available)('the sandbox keeps the shared list read-only (real bwrap)', () => {
  let root: string;
  let workspace: string;
  beforeAll(() => {
    // Outside /tmp: the sandbox gives commands a private /tmp.
    root = realpathSync(mkdtempSync('/var/tmp/efferent-trust-'));
    workspace = join(root, 'home');
    mkdirSync(join(workspace, '.config'), { recursive: true });
    mkdirSync(join(workspace, '.local'), { recursive: true });
    for (const entry of ['.lefthook.yml', '.bash_aliases', '.mvn/jvm.config', '.envrc']) {
      mkdirSync(dirname(join(workspace, entry)), { recursive: true });
      writeFileSync(join(workspace, entry), 'original\n');
    }
    mkdirSync(join(workspace, '.local/lib/python3.12/site-packages'), { recursive: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a command in the sandbox cannot change protected entries when home is the writable workspace', () => {
    const attempts = [
      'echo pwned >> .lefthook.yml',
      'echo pwned >> .bash_aliases',
      'echo "-Dx=pwned" >> .mvn/jvm.config',
      'echo pwned >> .envrc',
      'echo "import os" > .local/lib/python3.12/site-packages/evil.pth',
      'mkdir -p .config/autostart && echo pwned > .config/autostart/x.desktop',
      'echo pwned > .zprofile',
      'echo ok > allowed.txt',
    ];
    const invocation = buildSandboxInvocation(
      {
        writableDirectories: [workspace],
        sessionDirectory: join(root, 'session'),
        homeDirectory: workspace,
        allowNetwork: false,
      },
      workspace,
      ['bash', '-c', attempts.map((line) => `(${line}) 2>/dev/null`).join('; ')],
    );
    mkdirSync(join(root, 'session'), { recursive: true });
    try {
      const run = spawnSync(invocation.file, invocation.args, {
        stdio: ['ignore', 'pipe', 'pipe', ...invocation.inheritedFds],
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.error).toBeUndefined();
    } finally {
      invocation.cleanup();
    }
    for (const entry of ['.lefthook.yml', '.bash_aliases', '.mvn/jvm.config', '.envrc'])
      expect(readFileSync(join(workspace, entry), 'utf8'), entry).toBe('original\n');
    expect(existsSync(join(workspace, '.local/lib/python3.12/site-packages/evil.pth'))).toBe(false);
    expect(existsSync(join(workspace, '.config/autostart/x.desktop'))).toBe(false);
    // A missing start-up file is covered by an empty placeholder while calls run; it never holds the write.
    const zprofile = join(workspace, '.zprofile');
    expect(existsSync(zprofile) ? readFileSync(zprofile, 'utf8') : '').toBe('');
    // The sandbox did run the command: the ordinary write went through.
    expect(readFileSync(join(workspace, 'allowed.txt'), 'utf8')).toBe('ok\n');
  });
});
