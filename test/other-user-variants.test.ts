import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suggestRule } from '../src/permissions/decide/shell/subcommand-checks.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * A command run as another user (class `other-user`, docs/decisions/security-other-user.md).
 * `sudo` and `doas` were unwrapped like `nice`, so `Bash(git diff:*)` allowed `sudo git diff`,
 * `Bash(npm test)` allowed `sudo npm test`, and acceptEdits allowed `sudo rm -rf src`: root's
 * rights, home and environment, approved by a rule or a mode that spoke of the user's own command.
 * A rule that names the wrapper (`Bash(sudo apt update)`) never matched at all.
 */

const place = decisionPlace('efferent-other-user-', (made) => {
  mkdirSync(join(made.project, 'src'));
  writeFileSync(join(made.project, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
});

const userWrappers = [
  'sudo',
  'sudo -E',
  'sudo -n',
  'sudo -u root',
  'sudo -H',
  'sudo --preserve-env',
  'sudo -D .',
  'doas',
  'doas -n',
  'doas -u root',
  '/usr/bin/sudo',
  'nice sudo',
  'timeout 5 sudo',
  'env sudo',
  'sudo nice',
  'sudo env',
  'nohup doas',
];

const ruled: Array<{ command: string; rule: string }> = [
  { command: 'git diff', rule: 'Bash(git diff:*)' },
  { command: 'git status', rule: 'Bash(git status)' },
  { command: 'npm test', rule: 'Bash(npm test)' },
  { command: 'cat README.md', rule: 'Bash(cat:*)' },
  { command: 'ls -la', rule: 'Bash(ls *)' },
];

const fileCommands = [
  'touch src/x.ts',
  'rm src/a.ts',
  'mkdir src/y',
  'cp README.md src/',
  'sed -i s/a/b/ src/a.ts',
];

describe('other user: sudo and doas are never covered by a rule or mode for the inner command (generated)', () => {
  it('an allow rule for the inner command does not cover it', async () => {
    let count = 0;
    for (const wrapper of userWrappers)
      for (const { command, rule } of ruled) {
        const line = `${wrapper} ${command}`;
        const result = await place.decide(line, { allow: [rule] }, 'default');
        expect(result.behavior, `${line} under ${rule}`).toBe('ask');
        expect(result.message, line).toMatch(/\.$/);
        count++;
      }
    expect(count).toBe(userWrappers.length * ruled.length);
  });

  it('acceptEdits does not let it change files, nor does the read-only default let it read', async () => {
    for (const wrapper of userWrappers) {
      for (const command of fileCommands) {
        const line = `${wrapper} ${command}`;
        expect((await place.decide(line, {}, 'acceptEdits')).behavior, line).toBe('ask');
      }
      const read = `${wrapper} cat README.md`;
      expect((await place.decide(read, {}, 'default')).behavior, read).toBe('ask');
    }
  });

  it('a rule that names the wrapper covers it, and suggestions name it', async () => {
    for (const rule of ['Bash(sudo apt update)', 'Bash(sudo apt *)', 'Bash(sudo apt:*)']) {
      const result = await place.decide('sudo apt update', { allow: [rule] }, 'default');
      expect(result.behavior, rule).toBe('allow');
    }
    const subcommand = {
      argv: ['git', 'diff'],
      rawArgv: ['sudo', 'git', 'diff'],
      wrappers: ['sudo'],
      envVars: [],
      redirects: [],
      text: 'git diff',
      cwd: place.project,
      writesTo: [],
      readOnly: false,
    };
    const suggested = suggestRule(subcommand, 'Bash');
    expect(suggested.ruleContent).toBe('sudo git diff');
    const followed = await place.decide(
      'sudo git diff',
      { allow: [`Bash(${suggested.ruleContent})`] },
      'default',
    );
    expect(followed.behavior).toBe('allow');
  });

  it('deny rules still meet the inner command, and wrappers that keep the user still unwrap', async () => {
    for (const wrapper of userWrappers) {
      const line = `${wrapper} rm -rf src`;
      expect((await place.decide(line, { deny: ['Bash(rm:*)'] }, 'bypassPermissions')).behavior, line).toBe(
        'deny',
      );
    }
    for (const line of ['nice git diff', 'timeout 5 git diff', 'git diff']) {
      const result = await place.decide(line, { allow: ['Bash(git diff:*)'] }, 'default');
      expect(result.behavior, line).toBe('allow');
    }
    expect((await place.decide('nice touch src/x.ts', {}, 'acceptEdits')).behavior).toBe('allow');
  });
});
