import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMemoryFiles } from '../src/cli/terminal/system-prompt.ts';
import { loadCustomCommands } from '../src/cli/terminal/slash-commands.ts';
import { readOwnFileSync } from '../src/core/index.ts';
import { loadMcpConfiguration } from '../src/mcp/index.ts';
import {
  checkPermissionCase,
  loadDefaultShellAnalyzer,
  loadSettings,
  persistAllowRules,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * Files efferent reads on its own behalf (class `own-files`, docs/decisions/security-own-files.md):
 * settings, `.mcp.json`, memory, custom commands and repository git configuration are read with no
 * permission decision in between, and a cloned repository chooses what those names are. A link to a
 * secret outside the project must never be read into a prompt or a message; a link to `/dev/zero`, a
 * FIFO or `/dev/stdin` must never hang start-up.
 */

const secret = 'sk-proj-OWNFILESECRET9d2';
let root: string;
let home: string;
let outside: string;

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-own-files-')));
  home = join(root, 'home');
  outside = join(root, 'outside');
  mkdirSync(home);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), `${secret}\n`);
  writeFileSync(
    join(outside, 'settings.json'),
    JSON.stringify({ permissions: { allow: ['Bash(curl *)'] }, env: { SECRET: secret } }),
  );
  writeFileSync(join(outside, 'mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'evil' } } }));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the bounded reader', () => {
  it('reads a link that stays inside, refuses one that leads out, and never blocks', () => {
    const dir = project('reader');
    writeFileSync(join(dir, 'AGENTS.md'), 'agents\n');
    symlinkSync('AGENTS.md', join(dir, 'CLAUDE.md'));
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'out.md'));
    symlinkSync('/dev/zero', join(dir, 'zero.md'));
    symlinkSync('missing-target', join(dir, 'dangling.md'));
    execFileSync('mkfifo', [join(dir, 'fifo.md')]);
    writeFileSync(join(dir, 'big.md'), 'x'.repeat(5000));

    expect(readOwnFileSync(join(dir, 'CLAUDE.md'), { within: dir, maxBytes: 100 })).toMatchObject({
      kind: 'read',
      text: 'agents\n',
    });
    const out = readOwnFileSync(join(dir, 'out.md'), { within: dir, maxBytes: 100 });
    expect(out.kind).toBe('refused');
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(readOwnFileSync(join(dir, 'zero.md'), { within: dir, maxBytes: 100 }).kind).toBe('refused');
    expect(readOwnFileSync(join(dir, 'zero.md'), { maxBytes: 100 }).kind).toBe('refused');
    expect(readOwnFileSync(join(dir, 'fifo.md'), { maxBytes: 100 })).toMatchObject({ kind: 'refused' });
    expect(readOwnFileSync(join(dir, 'dangling.md'), { maxBytes: 100 }).kind).toBe('missing');
    expect(readOwnFileSync(join(dir, 'big.md'), { maxBytes: 100 }).kind).toBe('refused');
    expect(readOwnFileSync(join(dir, 'big.md'), { maxBytes: 100, cutOversize: true })).toMatchObject({
      kind: 'read',
      cut: true,
    });
  });
});

describe('files a cloned repository names', () => {
  it('settings: a link out of the project is skipped with a warning, a link to /dev/zero does not hang', async () => {
    const dir = project('settings');
    mkdirSync(join(dir, '.claude'));
    mkdirSync(join(dir, '.efferent'));
    symlinkSync(join(outside, 'settings.json'), join(dir, '.claude', 'settings.json'));
    symlinkSync('/dev/zero', join(dir, '.efferent', 'settings.json'));
    symlinkSync('/dev/stdin', join(dir, '.efferent', 'settings.local.json'));
    const settings = await loadSettings({
      cwd: dir,
      home,
      trusted: true,
      managedSettingsPath: join(root, 'no-managed.json'),
    });
    expect(JSON.stringify(settings.rules)).not.toContain('curl');
    expect(settings.env).not.toHaveProperty('SECRET');
    const text = settings.warnings.map((warning) => `${warning.file}: ${warning.reason}`).join('\n');
    expect(text).toMatch(/\.claude\/settings\.json.*symbolic link/);
    expect(text).toMatch(/\.efferent\/settings\.json.*\/dev\/zero/);
    expect(text).not.toContain(secret);
  });

  it('.mcp.json: a link out of the project starts nothing, a link to /dev/zero does not hang', async () => {
    for (const target of [join(outside, 'mcp.json'), '/dev/zero']) {
      const dir = project(`mcp-${target.length}`);
      symlinkSync(target, join(dir, '.mcp.json'));
      const config = await loadMcpConfiguration({ projectRoot: dir, home, trusted: true, env: {} });
      expect(config.servers).toEqual([]);
      expect(config.warnings.join('\n')).toMatch(/\.mcp\.json cannot be read/);
    }
  });

  it('memory: CLAUDE.md linking out of the project never reaches the prompt; a link inside does', () => {
    const dir = project('memory');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'CLAUDE.md'));
    writeFileSync(join(dir, 'EFFERENT.md'), 'project notes\n');
    symlinkSync('EFFERENT.md', join(dir, 'AGENTS.md'));
    const skipped: string[] = [];
    const memory = readMemoryFiles(
      ['EFFERENT.md', 'AGENTS.md', 'CLAUDE.md'].map((name) => join(dir, name)),
      { projectRoot: dir, onSkipped: (reason) => skipped.push(reason) },
    );
    expect(memory.map((file) => file.text).join('')).not.toContain(secret);
    expect(memory.map((file) => file.path)).toEqual([join(dir, 'EFFERENT.md'), join(dir, 'AGENTS.md')]);
    expect(skipped.join('\n')).toMatch(/CLAUDE\.md leads through a symbolic link/);
  });

  it('custom commands: a command file linking out of the project is not loaded', () => {
    const dir = project('commands');
    mkdirSync(join(dir, '.claude', 'commands'), { recursive: true });
    symlinkSync(join(outside, 'secret.txt'), join(dir, '.claude', 'commands', 'leak.md'));
    writeFileSync(join(dir, '.claude', 'commands', 'ok.md'), 'Review the diff.\n');
    const commands = loadCustomCommands([join(dir, '.claude', 'commands')], dir);
    expect(commands.map((command) => command.name)).toEqual(['ok']);
  });

  it('"always allow" is never written through a link out of the project', async () => {
    const dir = project('persist');
    const target = join(outside, 'efferent-dir');
    mkdirSync(target);
    symlinkSync(target, join(dir, '.efferent'));
    await expect(persistAllowRules(dir, ['Bash(npm test)'])).rejects.toThrow(
      /symbolic link out of the project/,
    );
    expect(existsSync(join(target, 'settings.local.json'))).toBe(false);
  });

  it('git configuration: a config that is /dev/zero asks at once, and a parse error quotes nothing', async () => {
    const dir = project('git');
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home };
    execFileSync('git', ['init', '-q'], { cwd: dir, env });
    // A directory of the project that is itself a bare repository, its config a link to /dev/zero.
    execFileSync('git', ['init', '-q', '--bare', 'vendored'], { cwd: dir, env });
    // (A plain clone can carry its files, a `commondir` link to /dev/zero among them.)
    symlinkSync('/dev/zero', join(dir, 'vendored', 'commondir'));
    // The repository includes a file outside, credentials-shaped, whose second line is a token.
    writeFileSync(join(outside, 'credentials'), `[default]\n${secret}\n`);
    writeFileSync(join(dir, '.git', 'config'), `[include]\n\tpath = ${join(outside, 'credentials')}\n`, {
      flag: 'a',
    });
    const shell = await loadDefaultShellAnalyzer();
    const options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
    const decide = (command: string, cwd: string) =>
      checkPermissionCase(
        {
          tool: 'Bash',
          input: { command },
          cwd,
          home,
          mode: 'default',
          rules: { allow: [], deny: [], ask: [] },
        },
        options,
      );
    const vendored = await decide('git status', join(dir, 'vendored'));
    expect(vendored.behavior).toBe('ask');
    expect(vendored.message).toMatch(/not a regular file/);
    const included = await decide('git status', dir);
    expect(included.behavior).toBe('ask');
    expect(JSON.stringify(included)).not.toContain('OWNFILESECRET');
    expect(JSON.stringify(included)).not.toContain('sk-proj');
  });

  it('the CLI answers a check in a repository whose settings and .mcp.json are /dev/zero', () => {
    const dir = project('cli');
    mkdirSync(join(dir, '.claude'));
    symlinkSync('/dev/zero', join(dir, '.claude', 'settings.json'));
    symlinkSync('/dev/zero', join(dir, '.mcp.json'));
    const result = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', 'bin', 'efferent.js'), 'check', 'Read', '{"file_path":"a.txt"}'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, EFFERENT_CONFIG_DIR: join(home, '.efferent') },
        timeout: 60_000,
      },
    );
    expect(result.signal).toBeNull();
    expect(result.stdout).toMatch(/Decision: allow/);
  });
});
