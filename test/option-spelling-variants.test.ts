import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Short options may be clustered, split, reordered and written after the operands (class
 * `option-spelling`, docs/decisions/security-option-spelling.md). `rm -fr dist`, `rm -r -f dist`,
 * `rm dist -rf` and `rm -rfv dist` all run `rm -rf dist`, and slipped past `Bash(rm -rf *)` in
 * bypassPermissions, where only deny rules stand in the way. Real rm first removes the directory
 * for each spelling; the engine must then not allow any of them.
 */

const place = decisionPlace('efferent-option-spelling-');

const decide = (command: string, rule: string) =>
  place.decide(command, { deny: [rule] }, 'bypassPermissions');

const rmSpellings = [
  'rm -fr dist',
  'rm -r -f dist',
  'rm -f -r dist',
  'rm dist -rf',
  'rm dist -fr',
  'rm dist -r -f',
  'rm -rfv dist',
  'rm -vfr dist',
  'rm -r dist -f',
  'rm -f dist -r',
  'rm -dfrRv dist',
  'rm -v -d -fr -R dist',
];

describe('short options in any arrangement', () => {
  it.each(rmSpellings)('real rm removes the directory with %s', (command) => {
    mkdirSync(join(place.project, 'dist', 'sub'), { recursive: true });
    writeFileSync(join(place.project, 'dist', 'sub', 'x'), 'x\n');
    spawnSync('bash', ['-c', command], { cwd: place.project, timeout: 20_000 });
    expect(existsSync(join(place.project, 'dist'))).toBe(false);
  });

  it.each(
    ['Bash(rm -rf:*)', 'Bash(rm -rf *)', 'Bash(rm -fr:*)', 'Bash(rm -r -f:*)'].flatMap((rule) =>
      rmSpellings.map((command) => [command, rule]),
    ),
  )('%s is not allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    ['git branch -fD main', 'Bash(git branch -D:*)'],
    ['git branch main -D', 'Bash(git branch -D:*)'],
    ['chmod -vR 777 .', 'Bash(chmod -R:*)'],
    ['git clean -df', 'Bash(git clean -fd:*)'],
    ['git clean -d -f -x', 'Bash(git clean -fdx:*)'],
  ])('%s is not allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    ['rm -f notes.txt', 'Bash(rm -rf:*)'],
    ['rm -r dist', 'Bash(rm -rf:*)'],
    ['ls -la', 'Bash(rm -rf:*)'],
    ['git branch -d topic', 'Bash(git branch -D:*)'],
  ])('%s stays allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
