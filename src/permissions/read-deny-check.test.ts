import { describe, expect, it } from 'vitest';
import type { RealpathFn } from './paths/canonical-path.ts';
import { createReadDenyCheck } from './read-deny-check.ts';
import { buildRules } from './rules/build-rules.ts';
import type { RuleSet } from './rules/rule-types.ts';

const rules = (deny: string[]): RuleSet => ({
  allow: [],
  ask: [],
  deny: buildRules(deny, 'deny', { source: 'projectSettings', origin: 'test', root: '/srv/proj' }).rules,
});
// A filesystem where /srv/proj/notes links to /srv/proj/.env and everything else is itself.
const links: RealpathFn = (path) => (path === '/srv/proj/notes' ? '/srv/proj/.env' : path);

describe('createReadDenyCheck', () => {
  it('is absent without Read deny rules, so searches pay nothing', () => {
    expect(createReadDenyCheck({ rules: rules([]), home: '/home/user' })).toBeUndefined();
    expect(
      createReadDenyCheck({ rules: rules(['Edit(./.env)', 'Bash(cat *)']), home: '/home/user' }),
    ).toBeUndefined();
  });

  it('anchors ./ rules at the cwd it is asked with, as the engine does', () => {
    const check = createReadDenyCheck({
      rules: rules(['Read(./.env)']),
      home: '/home/user',
      realpath: links,
    });
    expect(check?.('/srv/proj/.env', '/srv/proj')).toBe(true);
    expect(check?.('/srv/proj/src/.env', '/srv/proj')).toBe(false);
    expect(check?.('/srv/proj/src/.env', '/srv/proj/src')).toBe(true);
  });

  it('denies a link whose target is denied, and bare names at any depth', () => {
    const check = createReadDenyCheck({
      rules: rules(['Read(./.env)', 'Read(*.pem)', 'Read(~/.ssh/**)']),
      home: '/home/user',
      realpath: links,
    });
    expect(check?.('/srv/proj/notes', '/srv/proj')).toBe(true);
    expect(check?.('/srv/proj/a/b/server.PEM', '/srv/proj')).toBe(true);
    expect(check?.('/home/user/.ssh/id_ed25519', '/srv/proj')).toBe(true);
    expect(check?.('/srv/proj/src/app.ts', '/srv/proj')).toBe(false);
  });

  it('hides paths it cannot reason about', () => {
    const check = createReadDenyCheck({
      rules: rules(['Read(./.env)']),
      home: '/home/user',
      realpath: links,
    });
    expect(check?.('/srv/proj/odd\nname', '/srv/proj')).toBe(true);
  });
});
