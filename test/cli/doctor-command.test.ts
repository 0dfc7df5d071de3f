import { copyFile, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEfferent } from './run-efferent.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'claude-settings');
let root: string;
let project: string;
let home: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-doctor-')));
  project = join(root, 'project');
  home = join(root, 'home');
  await mkdir(join(project, '.claude'), { recursive: true });
  await mkdir(join(project, '.efferent'), { recursive: true });
  await mkdir(join(home, '.efferent'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('efferent doctor', () => {
  it('lists the settings files, every warning, unused keys, hooks, MCP servers, sandbox and ripgrep', {
    timeout: 180_000,
  }, async () => {
    // Settings files as users publish them, each with entries Claude Code would skip.
    await copyFile(join(fixtures, 'hooks-mixed.json'), join(project, '.claude', 'settings.json'));
    await copyFile(join(fixtures, 'allow-edits.json'), join(project, '.claude', 'settings.local.json'));
    await copyFile(join(fixtures, 'colon-rules.json'), join(project, '.efferent', 'settings.json'));
    await copyFile(join(fixtures, 'commented.json'), join(home, '.efferent', 'settings.json'));
    await writeFile(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', 'server-memory'] } } }),
    );
    const managed = join(root, 'managed-settings.json');
    await writeFile(managed, JSON.stringify({ permissions: { deny: ['Bash(curl *)'] } }));
    const result = await runEfferent(['doctor', '--cwd', project, '--trust'], project, home, {
      EFFERENT_MANAGED_SETTINGS: managed,
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`read      ${managed} (policySettings)`);
    expect(out).toContain(`read      ${join(project, '.efferent', 'settings.json')} (projectSettings)`);
    expect(out).toContain(`read      ${join(project, '.claude', 'settings.json')} (projectSettings)`);
    // Not valid JSON (a comment): only its restrictions apply (security-settings-syntax.md).
    expect(out).toContain(`partly    ${join(home, '.efferent', 'settings.json')} (userSettings`);
    const warnings = out.split('\n').filter((line) => line.startsWith('  Settings '));
    const keys = warnings.map(
      (line) => /: (?:skipped (\S+)|the whole file was skipped):/.exec(line)?.[1] ?? '(file)',
    );
    expect(keys.sort()).toEqual(
      [
        '(file)',
        'permissions.allow[0]',
        'permissions.allow[1]',
        'permissions.allow[2]',
        'permissions.allow[3]',
        'permissions.allow[4]',
        'permissions.defaultMode',
        'permissions.defaultMode',
        'env.FEATURES',
        'hooks.PostToolUse[0].hooks[1]',
        'hooks.PostToolUse[0].hooks[2].command',
        'hooks.Stop',
      ].sort(),
    );
    expect(out).toMatch(/^Warnings \(12\):$/m);
    // The model key is applied: doctor names the model `run` would use instead of listing the key.
    expect(out).not.toMatch(/^ {2}model \(/m);
    expect(out).toMatch(/^Model: \S+ \(the settings model key; --model overrides it\)$/m);
    expect(out).toMatch(/^ {2}includeCoAuthoredBy \(.*\): not used/m);
    expect(out).toMatch(/^ {2}PostToolUse \[Edit\|Write\] command: echo formatted/m);
    // Approved by `enableAllProjectMcpServers` in Claude's local settings of this trusted folder.
    expect(out).toMatch(/^ {2}memory \(stdio, project, .*\.mcp\.json\): enabled$/m);
    expect(out).toMatch(/^Sandbox: (bubblewrap works|unavailable \(.+\))/m);
    expect(out).toMatch(/^Ripgrep: (\/\S+ \d+\.\d+\.\d+ \((system|bundled)\)|none usable)/m);
  });
});
