import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, relaxedJson } from '../src/permissions/index.ts';

/**
 * A settings file efferent cannot read strictly used to be skipped whole, deny rules included: a
 * byte order mark (Windows editors and PowerShell write one; Claude Code reads past it), a comment
 * or a trailing comma dropped the user's or the administrator's denials. A mark is now read past,
 * and a file that is JSON with comments or trailing commas still applies the part that only
 * tightens (deny and ask rules, stricter modes); its allow rules, hooks and env wait for the fix.
 */

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-settings-syntax-')));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const deny = 'Bash(curl *)';
const allow = 'Bash(make *)';

/** Ways a person's editor or tool writes a valid-looking file that strict JSON refuses. */
const damages: Array<[string, (rules: { deny: string; allow: string }) => string]> = [
  [
    'byte order mark',
    (r) => `\ufeff${JSON.stringify({ permissions: { deny: [r.deny], allow: [r.allow] } })}`,
  ],
  [
    'line comment',
    (r) => `{\n  // keep curl out\n  "permissions": {"deny": ["${r.deny}"], "allow": ["${r.allow}"]}\n}`,
  ],
  [
    'block comment',
    (r) => `/* policy */ {"permissions": {"deny": ["${r.deny}" /* why */], "allow": ["${r.allow}"]}}`,
  ],
  ['trailing comma in a list', (r) => `{"permissions": {"deny": ["${r.deny}",], "allow": ["${r.allow}"]}}`],
  [
    'trailing comma in an object',
    (r) => `{"permissions": {"deny": ["${r.deny}"], "allow": ["${r.allow}"],},}`,
  ],
  [
    'comment and mark',
    (r) => `\ufeff// x\n{"permissions": {"deny": ["${r.deny}"], "allow": ["${r.allow}"]}}`,
  ],
  [
    'comment marks inside strings',
    (r) =>
      `{"permissions": {"deny": ["${r.deny}", "WebFetch(domain:a.example) // not a comment"], "allow": ["${r.allow}"],}}`,
  ],
  [
    'CRLF and a trailing comma',
    (r) => `{\r\n"permissions": {\r\n"deny": ["${r.deny}"],\r\n"allow": ["${r.allow}"],\r\n},\r\n}`,
  ],
];

/** Every level a settings file sits at; the project files are trusted so their allow rules would count. */
const levels = (home: string, project: string, policy: string): Array<[string, string]> => [
  ['user .efferent', join(home, '.efferent', 'settings.json')],
  ['user .claude', join(home, '.claude', 'settings.json')],
  ['project .efferent', join(project, '.efferent', 'settings.json')],
  ['project .claude', join(project, '.claude', 'settings.json')],
  ['local .claude', join(project, '.claude', 'settings.local.json')],
  ['managed policy', policy],
];

describe('settings files strict JSON refuses', () => {
  it('generated: every damage at every level keeps the deny rules; only a mark keeps the allow rules', async () => {
    let count = 0;
    for (const [damage, write] of damages)
      for (const trusted of [true, false]) {
        const home = mkdtempSync(join(base, 'home-'));
        const project = mkdtempSync(join(base, 'project-'));
        for (const dir of ['.efferent', '.claude']) {
          mkdirSync(join(home, dir));
          mkdirSync(join(project, dir));
        }
        const policy = join(base, `policy-${count}.json`);
        for (const [level, file] of levels(home, project, policy)) {
          for (const [, other] of levels(home, project, policy)) rmSync(other, { force: true });
          writeFileSync(file, write({ deny, allow }));
          const settings = await loadSettings({ cwd: project, home, trusted, managedSettingsPath: policy });
          const label = `${damage} in ${level} (${trusted ? 'trusted' : 'untrusted'})`;
          expect(
            settings.rules.deny.map((rule) => `${rule.value.toolName}(${rule.value.ruleContent})`),
            label,
          ).toContain(deny);
          const allowed = settings.rules.allow.map(
            (rule) => `${rule.value.toolName}(${rule.value.ruleContent})`,
          );
          const loosens =
            damage === 'byte order mark' &&
            (trusted || (!level.startsWith('project') && !level.startsWith('local')));
          if (loosens) expect(allowed, label).toContain(allow);
          else expect(allowed, label).not.toContain(allow);
          count++;
        }
      }
    expect(count).toBe(damages.length * 2 * 6);
  });

  it('a stricter mode from a damaged file applies; a looser one, hooks and env do not', async () => {
    const home = mkdtempSync(join(base, 'home-'));
    const project = mkdtempSync(join(base, 'project-'));
    mkdirSync(join(home, '.claude'));
    const file = join(home, '.claude', 'settings.json');
    writeFileSync(file, '{"permissions": {"defaultMode": "plan",}, // x\n}');
    const plan = await loadSettings({
      cwd: project,
      home,
      trusted: true,
      managedSettingsPath: join(base, 'none'),
    });
    expect(plan.defaultMode).toBe('plan');
    expect(plan.warnings.map((warning) => warning.key)).toContain('(syntax)');
    writeFileSync(
      file,
      '{"permissions": {"defaultMode": "acceptEdits"}, "env": {"A": "1"}, "hooks": {"PreToolUse": []},}',
    );
    const loose = await loadSettings({
      cwd: project,
      home,
      trusted: true,
      managedSettingsPath: join(base, 'none'),
    });
    expect(loose.defaultMode).toBe('default');
    expect(loose.env).toEqual({});
    expect(loose.hooks).toEqual([]);
  });

  it('text that is not JSON even with comments is still skipped, and --settings text stays an error', async () => {
    for (const text of [
      '{"permissions": {"deny": ["Bash(curl *)"]',
      '/* open',
      'deny everything',
      '["Bash(x)"]',
    ])
      expect(relaxedJson(text) === undefined || Array.isArray(relaxedJson(text)), text).toBe(true);
    const project = mkdtempSync(join(base, 'project-'));
    await expect(
      loadSettings({
        cwd: project,
        home: project,
        trusted: true,
        managedSettingsPath: join(base, 'none'),
        cli: { settings: '{"permissions": {"deny": ["Bash(x)"],},}' },
      }),
    ).rejects.toThrow(/--settings/);
  });

  it('strict JSON reads exactly as before (a string holding // and , ] is data)', () => {
    const text = '{"permissions": {"deny": ["Bash(curl http://a,]b)", "Read(//etc/**)"]}}';
    expect(relaxedJson(text)).toEqual(JSON.parse(text));
  });

  it('efferent check: the user’s deny rule in a settings file with a mark or a comment still denies', {
    timeout: 300_000,
  }, () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'efferent.js');
    const home = mkdtempSync(join(base, 'home-'));
    const project = mkdtempSync(join(base, 'project-'));
    mkdirSync(join(home, '.claude'));
    for (const text of [
      `\ufeff{"permissions":{"deny":["${deny}"]}}`,
      `{"permissions":{"deny":["${deny}"],}, // tidy later\n}`,
    ]) {
      writeFileSync(join(home, '.claude', 'settings.json'), text);
      const result = spawnSync(
        process.execPath,
        [bin, 'check', 'Bash', '{"command":"curl -s http://example.com"}', '--mode', 'bypassPermissions'],
        {
          cwd: project,
          encoding: 'utf8',
          timeout: 120_000,
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            HOME: home,
            EFFERENT_MANAGED_SETTINGS: join(base, 'none.json'),
          },
        },
      );
      expect(result.stdout, JSON.stringify(text)).toMatch(/^Decision: deny/m);
    }
  });
});

describe('MCP configuration read from the same files', () => {
  it('a policy with comments still blocks the servers it denies; a marked .mcp.json is read', async () => {
    const { loadMcpConfiguration } = await import('../src/mcp/config.ts');
    const home = mkdtempSync(join(base, 'home-'));
    const project = mkdtempSync(join(base, 'project-'));
    mkdirSync(join(home, '.efferent'));
    writeFileSync(
      join(home, '.efferent', 'settings.json'),
      JSON.stringify({ mcpServers: { tracker: { command: 'tracker-mcp' }, docs: { command: 'docs-mcp' } } }),
    );
    const policy = join(base, 'mcp-policy.json');
    for (const text of [
      '{"deniedMcpServers": [{"serverName": "tracker"},], // no tracking\n}',
      '\ufeff{"deniedMcpServers": [{"serverName": "tracker"}]}',
      '/* x */ {"deniedMcpServers": [{"serverName": "tracker"}], "allowedMcpServers": [{"serverName": "docs"}],}',
      // A managed allowlist restricts: kept from a file with a comment too.
      '{"allowedMcpServers": [{"serverName": "docs"},], // only docs\n}',
    ]) {
      writeFileSync(policy, text);
      const configuration = await loadMcpConfiguration({
        projectRoot: project,
        home,
        trusted: true,
        managedSettingsPath: policy,
        env: {},
      });
      const status = Object.fromEntries(configuration.servers.map((server) => [server.name, server.status]));
      expect(status, text).toEqual({ tracker: 'blocked', docs: 'enabled' });
    }
    writeFileSync(
      join(project, '.mcp.json'),
      `\ufeff${JSON.stringify({ mcpServers: { local: { command: 'x' } } })}`,
    );
    const marked = await loadMcpConfiguration({ projectRoot: project, home, trusted: false, env: {} });
    expect(marked.servers.map((server) => server.name)).toContain('local');
  });
});
