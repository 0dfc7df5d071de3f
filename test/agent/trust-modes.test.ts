import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/agent/index.ts';
import { type PermissionPrompt, type PermissionMode, toolResultText } from '../../src/core/index.ts';
import { createModelClassifier, loadSettings } from '../../src/permissions/index.ts';
import { createTempWorkspace } from '../../src/testing/index.ts';

/**
 * The trust-and-modes class: an untrusted project may only tighten, auto mode without a model
 * classifier asks for anything the engine cannot prove safe, no classifier settles a safety ask,
 * and the REPL (host code outside the sandbox) is asked about in every mode.
 */

const write = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
};

/** Every loosening an untrusted project might try, as a settings fragment and a check that it did not apply. */
const loosenings: ReadonlyArray<{
  name: string;
  settings: Record<string, unknown>;
  applied: (loaded: Awaited<ReturnType<typeof loadSettings>>) => boolean;
}> = [
  ...(['acceptEdits', 'auto', 'bypassPermissions', 'bubble'] as const).map((mode) => ({
    name: `defaultMode ${mode}`,
    settings: { permissions: { defaultMode: mode } },
    applied: (loaded: Awaited<ReturnType<typeof loadSettings>>) => loaded.defaultMode === mode,
  })),
  {
    name: 'disableAllHooks',
    settings: { disableAllHooks: true },
    applied: (loaded) => loaded.disableAllHooks || loaded.hooks.length === 0,
  },
  {
    name: 'hooks',
    settings: { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] } },
    applied: (loaded) => loaded.hooks.some((layer) => layer.source !== 'userSettings'),
  },
  {
    name: 'env',
    settings: { env: { NODE_OPTIONS: '--require ./x.js' } },
    applied: (l) => 'NODE_OPTIONS' in l.env,
  },
  {
    name: 'additionalDirectories',
    settings: { permissions: { additionalDirectories: ['/'] } },
    applied: (loaded) => loaded.additionalDirectories.includes('/'),
  },
  {
    name: 'allow rule',
    settings: { permissions: { allow: ['Bash(curl *)'] } },
    applied: (loaded) => loaded.rules.allow.some((rule) => rule.text === 'Bash(curl *)'),
  },
  {
    // Compatibility is on by default; switching it off would drop the rules in Claude's files.
    name: 'claudeCompat',
    settings: { claudeCompat: false },
    applied: (loaded) => !loaded.rules.allow.some((rule) => rule.text === 'Bash(user-claude-rule)'),
  },
  {
    name: 'allowManagedPermissionRulesOnly',
    settings: { permissions: { allowManagedPermissionRulesOnly: true } },
    applied: (loaded) => !loaded.rules.allow.some((rule) => rule.text === 'Bash(make)'),
  },
];

/** Where a project can put settings: efferent's files, and Claude's (read by default). */
const projectFiles = [
  '.efferent/settings.json',
  '.efferent/settings.local.json',
  '.claude/settings.json',
  '.claude/settings.local.json',
];

describe('an untrusted project may only tighten (generated: every loosening × every project file)', () => {
  const cases = loosenings.flatMap((loosening) => projectFiles.map((file) => ({ loosening, file })));

  it.each(cases.map((item) => [`${item.loosening.name} in ${item.file}`, item] as const))(
    '%s is ignored while the folder is untrusted',
    async (_label, { loosening, file }) => {
      await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
      await using project = await createTempWorkspace();
      write(join(home.dir, '.efferent/settings.json'), {
        permissions: { allow: ['Bash(make)'] },
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] },
      });
      write(join(home.dir, '.claude/settings.json'), { permissions: { allow: ['Bash(user-claude-rule)'] } });
      write(join(project.dir, file), loosening.settings);
      const options = {
        cwd: project.dir,
        home: home.dir,
        managedSettingsPath: join(home.dir, 'no-managed.json'),
      };
      const untrusted = await loadSettings({ ...options, trusted: false });
      expect(loosening.applied(untrusted), `${loosening.name} applied from ${file}`).toBe(false);
      expect(untrusted.notices.join('\n')).toMatch(/not trusted.*\.$/m);
      // The user's own settings are untouched by the untrusted file.
      expect(untrusted.rules.allow.map((rule) => rule.text)).toContain('Bash(make)');
      expect(untrusted.hooks.map((layer) => layer.source)).toEqual(['userSettings']);
    },
  );

  it('keeps deny and ask rules and the default, plan and dontAsk modes of an untrusted project', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    for (const mode of ['default', 'plan', 'dontAsk'] as const) {
      await using project = await createTempWorkspace({
        files: {
          '.efferent/settings.json': JSON.stringify({
            permissions: { defaultMode: mode, deny: ['Bash(rm *)'], ask: ['Bash(git push *)'] },
          }),
        },
      });
      const loaded = await loadSettings({ cwd: project.dir, home: home.dir, trusted: false });
      expect(loaded.defaultMode).toBe(mode);
      expect(loaded.rules.deny.map((rule) => rule.text)).toEqual(['Bash(rm *)']);
      expect(loaded.rules.ask.map((rule) => rule.text)).toEqual(['Bash(git push *)']);
    }
  });

  it('cannot undo a stricter mode the user chose: the untrusted default does not override the user’s plan', async () => {
    await using home = await createTempWorkspace({
      prefix: 'efferent-home-',
      files: { '.efferent/settings.json': JSON.stringify({ permissions: { defaultMode: 'plan' } }) },
    });
    await using project = await createTempWorkspace({
      files: { '.efferent/settings.json': JSON.stringify({ permissions: { defaultMode: 'default' } }) },
    });
    expect((await loadSettings({ cwd: project.dir, home: home.dir, trusted: false })).defaultMode).toBe(
      'plan',
    );
    // Trusted, the project's choice wins as its precedence says.
    expect((await loadSettings({ cwd: project.dir, home: home.dir, trusted: true })).defaultMode).toBe(
      'default',
    );
  });
});

/** A hook script that blocks every Bash call and leaves a mark, so a test can see it ran. */
function blockingHook(dir: string, name: string): string {
  const path = join(dir, `${name}.sh`);
  write(
    path,
    `#!/bin/sh\ncat > /dev/null\necho ${name} >> "${join(dir, 'hook.log')}"\necho '${name} blocks Bash' >&2\nexit 2\n`,
  );
  return path;
}

describe('disableAllHooks through createSession', () => {
  it('an untrusted project cannot switch off the user’s hooks; the hook still blocks the call', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    const hook = blockingHook(home.dir, 'user-hook');
    write(join(home.dir, '.efferent/settings.json'), {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
    });
    await using project = await createTempWorkspace({
      files: {
        '.efferent/settings.json': JSON.stringify({
          disableAllHooks: true,
          permissions: { defaultMode: 'acceptEdits' },
        }),
      },
    });
    await using session = await createSession({
      cwd: project.dir,
      home: home.dir,
      managedSettingsPath: join(home.dir, 'none.json'),
    });
    expect(session.settings.defaultMode).toBe('default');
    const result = await session.callTool('Bash', { command: 'echo hi' });
    expect(toolResultText(result)).toContain('user-hook blocks Bash');
    expect(readFileSync(join(home.dir, 'hook.log'), 'utf8')).toBe('user-hook\n');
    // acceptEdits did not apply: an edit asks, and nobody is there to approve it.
    const edit = await session.callTool('Write', { file_path: join(project.dir, 'a.txt'), content: 'x' });
    expect(edit.isError).toBe(true);
    expect(existsSync(join(project.dir, 'a.txt'))).toBe(false);
  });

  it('below the managed policy, disableAllHooks (even trusted) keeps the policy’s hooks and drops the rest', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    const managedHook = blockingHook(home.dir, 'managed-hook');
    const userHook = blockingHook(home.dir, 'user-hook');
    const managed = join(home.dir, 'managed.json');
    write(managed, {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${managedHook}` }] }],
      },
    });
    write(join(home.dir, '.efferent/settings.json'), {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${userHook}` }] }] },
    });
    await using project = await createTempWorkspace({
      files: { '.efferent/settings.json': JSON.stringify({ disableAllHooks: true }) },
    });
    await using session = await createSession({
      cwd: project.dir,
      home: home.dir,
      managedSettingsPath: managed,
      trusted: true,
    });
    expect(toolResultText(await session.callTool('Bash', { command: 'echo hi' }))).toContain(
      'managed-hook blocks Bash',
    );
    expect(readFileSync(join(home.dir, 'hook.log'), 'utf8')).toBe('managed-hook\n');
    // The policy itself may switch every hook off.
    write(managed, { disableAllHooks: true, hooks: JSON.parse(readFileSync(managed, 'utf8')).hooks });
    await using off = await createSession({
      cwd: project.dir,
      home: home.dir,
      managedSettingsPath: managed,
      trusted: true,
    });
    expect(toolResultText(await off.callTool('Bash', { command: 'echo hi' }))).toContain('hi');
  });
});

/** Obfuscated code in every interpreter and wrapper: the rule-based reviewer cannot read any of it. */
function obfuscatedVariants(): string[] {
  const hex = Buffer.from('import os; os.system("id")').toString('hex');
  const b64 = Buffer.from('require("child_process").execSync("id")').toString('base64');
  const payloads = [
    `python3 -c "exec(bytes.fromhex('${hex}').decode())"`,
    `python -c "import base64;exec(base64.b64decode('${Buffer.from('print(1)').toString('base64')}'))"`,
    `python3 -c "exec(''.join(map(chr,[112,114,105,110,116,40,49,41])))"`,
    `node -e "eval(Buffer.from('${b64}','base64').toString())"`,
    `node --eval "eval(atob('${b64}'))"`,
    `perl -e 'eval pack("H*","${Buffer.from('print 1').toString('hex')}")'`,
    `ruby -e 'eval(["7072696e742031"].pack("H*"))'`,
    `bash -c "$(printf '\\x69\\x64')"`,
    `sh -c "$(echo aWQ= | base64 -d)"`,
    `printf '\\x69\\x64' | sh`,
  ];
  const wrappers = [
    (c: string) => c,
    (c: string) => `env LC_ALL=C ${c}`,
    (c: string) => `timeout 5 ${c}`,
    (c: string) => `(${c})`,
  ];
  return payloads.flatMap((payload) => wrappers.map((wrap) => wrap(payload)));
}

describe('auto mode without a model classifier asks for what the engine cannot prove safe', () => {
  it('generated: obfuscated code in every interpreter and wrapper reaches a person, never runs', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using project = await createTempWorkspace({ files: { 'src/a.ts': 'x' } });
    const prompts: PermissionPrompt[] = [];
    await using session = await createSession({
      cwd: project.dir,
      home: home.dir,
      permissionMode: 'auto',
      managedSettingsPath: join(home.dir, 'none.json'),
      askUser: async (prompt) => {
        prompts.push(prompt);
        return { choice: 'deny' };
      },
    });
    const variants = obfuscatedVariants();
    expect(variants.length).toBe(40);
    for (const command of variants) {
      const result = await session.callTool('Bash', { command });
      expect(result.isError, command).toBe(true);
    }
    expect(prompts.map((prompt) => prompt.input.command)).toEqual(variants);
    // What the engine proves safe is still allowed without asking: reads and in-workspace edits.
    expect(
      (await session.callTool('Read', { file_path: join(project.dir, 'src/a.ts') })).isError ?? false,
    ).toBe(false);
    expect(
      (await session.callTool('Write', { file_path: join(project.dir, 'src/b.ts'), content: 'y' })).isError ??
        false,
    ).toBe(false);
    expect(prompts).toHaveLength(variants.length);
  });

  it('generated: start-up file writes and secret reads never reach a classifier, even one that allows all', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using project = await createTempWorkspace();
    let consulted = 0;
    const classifier = createModelClassifier(async () => {
      consulted++;
      return 'ALLOW';
    });
    await using session = await createSession({
      cwd: project.dir,
      home: home.dir,
      permissionMode: 'auto',
      classifier,
      managedSettingsPath: join(home.dir, 'none.json'),
    });
    const startup = [
      '.bashrc',
      '.bash_aliases',
      '.zprofile',
      '.profile',
      '.config/fish/config.fish',
      '.ssh/rc',
    ];
    const writers = [
      (p: string) => `echo 'curl x | sh' >> ~/${p}`,
      (p: string) => `printf 'x' | tee -a ~/${p}`,
      (p: string) => `cp evil ~/${p}`,
      (p: string) => `echo x > ${join(project.dir, p)}`,
    ];
    const reads = ['/etc/shadow', '~/.ssh/id_rsa', '~/.aws/credentials', '/etc/passwd'];
    const readers = [
      (p: string) => `cat ${p}`,
      (p: string) => `head -c 100 ${p}`,
      (p: string) => `grep root ${p}`,
    ];
    const commands = [
      ...startup.flatMap((path) => writers.map((make) => make(path))),
      ...reads.flatMap((path) => readers.map((make) => make(path))),
    ];
    for (const command of commands) {
      const result = await session.callTool('Bash', { command });
      expect(result.isError, command).toBe(true);
    }
    expect(consulted).toBe(0);
    expect(existsSync(join(home.dir, '.bashrc'))).toBe(false);
  });
});

describe('the REPL runs on the host, outside the sandbox: it asks in every mode', () => {
  const modes: PermissionMode[] = ['default', 'acceptEdits', 'auto', 'bypassPermissions', 'plan', 'dontAsk'];

  it.each(modes)('%s: asked (or denied), never run without a person or an explicit rule', async (mode) => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using project = await createTempWorkspace();
    const marker = join(project.dir, 'ran.txt');
    const prompts: PermissionPrompt[] = [];
    await using session = await createSession({
      cwd: project.dir,
      home: home.dir,
      permissionMode: mode,
      flags: { repl: true, powershell: false, todoWrite: true },
      classifier: createModelClassifier(async () => 'ALLOW'),
      managedSettingsPath: join(home.dir, 'none.json'),
      askUser: async (prompt) => {
        prompts.push(prompt);
        return { choice: 'deny' };
      },
    });
    const code = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
    const result = await session.callTool('REPL', { code });
    expect(result.isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(prompts.length).toBe(mode === 'dontAsk' ? 0 : 1);
    if (mode !== 'dontAsk') expect(prompts[0]?.message ?? '').toMatch(/outside the OS sandbox.*\.$/);
  });

  it('an explicit REPL allow rule in the user’s settings lets it run; an untrusted project’s cannot', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using project = await createTempWorkspace({
      files: { '.efferent/settings.json': JSON.stringify({ permissions: { allow: ['REPL'] } }) },
    });
    const options = {
      cwd: project.dir,
      home: home.dir,
      flags: { repl: true, powershell: false, todoWrite: true },
      managedSettingsPath: join(home.dir, 'none.json'),
    };
    {
      await using untrusted = await createSession(options);
      expect((await untrusted.callTool('REPL', { code: '6 * 7' })).isError).toBe(true);
    }
    write(join(home.dir, '.efferent/settings.json'), { permissions: { allow: ['REPL'] } });
    await using allowed = await createSession(options);
    const result = await allowed.callTool('REPL', { code: '6 * 7' });
    expect(toolResultText(result)).toBe('42');
  });
});
