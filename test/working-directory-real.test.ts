import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A listing program given no operand lists the directory it runs in (class `working-directory`,
 * docs/decisions/security-working-directory.md). `env -C DIR ls`, `cd && ls` (a bare `cd` goes
 * home) and wrappers around them move that directory out of the project without naming a path the
 * program reads. Each attack is first run by real bash to show that it prints a name from outside
 * the project; the engine must then not allow it. The same spellings inside the project stay allowed.
 */

const marker = 'WORKDIR_SECRET_NAME_7c2f';
const place = decisionPlace('efferent-workdir-', ({ root, home, project }) => {
  mkdirSync(join(home, '.ssh'));
  mkdirSync(join(root, 'outside'));
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(home, '.ssh', marker), 'key\n');
  writeFileSync(join(home, marker), 'x\n');
  writeFileSync(join(root, 'outside', marker), 'x\n');
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const decide = (command: string) => place.decide(command, {}, 'default');
const bash = (command: string) => place.bash(command);

/** Listing programs that read the directory they run in when given no operand. */
const listers = [
  'ls',
  'ls -la',
  'ls -R',
  'ls -1A',
  'du',
  'du -a',
  'tree',
  'tree -a',
  'find',
  'find -type f',
  'dir',
  'vdir',
];

/** Ways to run a program in directory D without giving it D. */
const moves = [
  'env -C D P',
  'env --chdir=D P',
  'env --chdir D P',
  'env -iC D P',
  'nice env -C D P',
  'timeout 5 env -C D P',
  'env -C D nice P',
  'env -C D timeout 5 P',
  'env -C D command P',
  'env -C D env P',
  'cd D && P',
  'cd D; P',
  'pushd D && P',
];

/** A bare `cd` goes home. */
const homeMoves = ['cd && P', 'cd; P', 'cd -- && P', 'cd -L && P', 'cd -P; P', 'cd && nice P'];

/** Directories outside the project, as placeholders filled in once the temporary tree exists. */
const dirKeys = ['<outside>', '../outside', '<ssh>'];
const fill = (command: string) =>
  command.replace('<outside>', join(place.root, 'outside')).replace('<ssh>', join(place.home, '.ssh'));
const dirs = () => ({
  outside: join(place.root, 'outside'),
  relativeOutside: '../outside',
  ssh: join(place.home, '.ssh'),
});

describe('a listing program lists the directory it runs in', () => {
  it('real bash prints a name from outside the project for each spelling', () => {
    expect(bash(`env -C ${dirs().relativeOutside} ls`)).toContain(marker);
    expect(bash('cd && ls -a')).toContain(marker);
    expect(bash(`env --chdir=${dirs().ssh} find`)).toContain(marker);
    expect(bash(`timeout 5 env -C ${dirs().outside} du -a`)).toContain(marker);
  });

  it.each(
    moves.flatMap((move) =>
      listers.flatMap((lister) => dirKeys.map((dir) => move.replace('D', dir).replace('P', lister))),
    ),
  )('%s is not allowed', async (template) => {
    const command = fill(template);
    const result = await decide(command);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each(homeMoves.flatMap((move) => listers.map((lister) => move.replace('P', lister))))(
    '%s is not allowed',
    async (command) => {
      const result = await decide(command);
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    'ls',
    'ls -la',
    'du -sh',
    'tree',
    'find -name "*.ts"',
    'find -type f',
    'env -C src ls',
    'env --chdir=src du -a',
    'cd src && ls -la',
    'cd src && find -type f',
    'timeout 5 env -C src tree',
    'pwd',
    'env -C ../outside pwd',
  ])('%s inside the project stays allowed', async (command) => {
    const result = await decide(command);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
