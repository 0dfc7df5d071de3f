import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A deny rule on an npm command covers every name npm runs it by (class `npm-command-names`,
 * docs/decisions/security-npm-command-names.md): npm resolves aliases (`i`, `rm`, `x`, `t`), typo
 * aliases (`isntall`) and any unambiguous abbreviation (`pub`, `publ`). Real npm first shows that an
 * abbreviation is the command; in bypassPermissions, where only deny rules stand in the way, none
 * of these names may pass a rule on the command they resolve to.
 */

const place = decisionPlace('efferent-npm-names-');

const decide = (command: string, rule: string) =>
  place.decide(command, { deny: [rule] }, 'bypassPermissions');

const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;

describe('every name npm runs a command by', () => {
  it.skipIf(!npm).each(['pub', 'publ', 'publis'])('real npm takes `npm %s` for publish', (name) => {
    const result = spawnSync('npm', [name, '--help'], {
      cwd: place.project,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: place.home,
        npm_config_update_notifier: 'false',
      },
      timeout: 60_000,
    });
    expect(result.stdout).toContain('npm publish');
  });

  it.each([
    ['npm pub', 'Bash(npm publish:*)'],
    ['npm publ --dry-run', 'Bash(npm publish:*)'],
    ['npm pu', 'Bash(npm publish *)'],
    ['npm --loglevel silent pub', 'Bash(npm publish:*)'],
    ['npm i left-pad', 'Bash(npm install:*)'],
    ['npm add left-pad', 'Bash(npm install:*)'],
    ['npm isntall left-pad', 'Bash(npm install:*)'],
    ['npm inst left-pad', 'Bash(npm install:*)'],
    ['npm in left-pad', 'Bash(npm install:*)'],
    ['npm x cowsay', 'Bash(npm exec:*)'],
    ['npm rm left-pad', 'Bash(npm uninstall:*)'],
    ['npm r left-pad', 'Bash(npm uninstall:*)'],
    ['npm un left-pad', 'Bash(npm uninstall:*)'],
    ['npm t', 'Bash(npm test)'],
    ['npm tst', 'Bash(npm test:*)'],
    ['npm run-script build', 'Bash(npm run:*)'],
    ['npm urn build', 'Bash(npm run:*)'],
    ['npm clean-install', 'Bash(npm ci:*)'],
    ['npm unpub left-pad', 'Bash(npm unpublish:*)'],
    ['npm dist-tags add x@1 latest', 'Bash(npm dist-tag:*)'],
    ['npm installTest', 'Bash(npm install-test:*)'],
  ])('%s is not allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    ['npm test', 'Bash(npm publish:*)'],
    ['npm run build', 'Bash(npm publish:*)'],
    ['npm pack --dry-run', 'Bash(npm publish:*)'],
    ['npm ls', 'Bash(npm install:*)'],
  ])('%s stays allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
