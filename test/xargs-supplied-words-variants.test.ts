import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * xargs appends words read from its input to the command it runs, so `xargs git` may be `git push`
 * and `xargs env`, `xargs timeout 5` or `xargs xargs` any command at all (class
 * `xargs-supplied-words`, docs/decisions/security-xargs-supplied-words.md). In bypassPermissions mode,
 * where only deny rules stand in the way, each was allowed past the deny rule on the command its
 * input names.
 */

const place = decisionPlace('efferent-xargs-words-');

function removesVictim(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  place.bash(command);
  return !existsSync(victim);
}

/** Commands that feed xargs the words (W). */
const feeders = ["echo 'W' |", "printf '%s\\n' 'W' |", 'cat words.txt |', '< words.txt'];

/** xargs forms whose input completes the command; the input is `rm victim`. */
const runnerForms = [
  'xargs env',
  'xargs -0 env',
  'xargs -r env -u HOME',
  'xargs nice',
  'xargs nice -n 5',
  'xargs timeout 5',
  'xargs nohup',
  'xargs stdbuf -oL',
  'xargs setsid',
  'xargs sudo',
  'xargs command',
  'xargs strace -f',
  'xargs -n2 xargs',
  'xargs xargs -0',
  'xargs -t -r xargs',
  'xargs -I{} sh -c {}',
  'xargs -I% env %',
  'xargs -I{} {}',
];

/** xargs forms that add words to a program a deny rule names (`git` + `push origin main`). */
const gitForms = [
  'xargs git',
  'xargs -n3 git',
  'xargs git -C .',
  'xargs -I{} git {}',
  'xargs -r git --no-pager',
];

const spelled = (feeder: string, form: string, words: string) =>
  feeder.startsWith('<') ? `${form} ${feeder.replace('W', words)}` : `${feeder.replace('W', words)} ${form}`;

describe('xargs supplies words of the command it runs', () => {
  it('real xargs runs the command its input completes', () => {
    expect(removesVictim("echo 'rm victim' | xargs env")).toBe(true);
    expect(removesVictim("echo 'rm victim' | xargs timeout 5")).toBe(true);
    expect(removesVictim("echo 'rm victim' | xargs -n2 xargs")).toBe(true);
    expect(removesVictim("echo 'victim' | xargs -I% env rm %")).toBe(true);
  });

  it.each(runnerForms.flatMap((form) => feeders.map((feeder) => spelled(feeder, form, 'rm victim'))))(
    '%s is not allowed past Bash(rm:*) in bypassPermissions',
    async (command) => {
      const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each(gitForms.flatMap((form) => feeders.map((feeder) => spelled(feeder, form, 'push origin main'))))(
    '%s is not allowed past Bash(git push:*) in bypassPermissions',
    async (command) => {
      const result = await place.decide(command, { deny: ['Bash(git push:*)'] }, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    'git ls-files | xargs grep -n TODO',
    "find . -name '*.ts' | xargs wc -l",
    'ls | xargs',
    'echo a b | xargs -n1 echo',
  ])('%s stays allowed under Bash(rm:*), in bypassPermissions and default mode', async (command) => {
    for (const mode of ['bypassPermissions', 'default'] as const) {
      const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, mode);
      expect(result.behavior, `${mode} ${command}: ${result.message ?? ''}`).toBe('allow');
    }
  });

  it.each(["find . -name '*.o' | xargs rm -f", 'git ls-files | xargs touch'])(
    '%s with no rule in force stays allowed in bypassPermissions',
    async (command) => {
      const result = await place.decide(command, {}, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    },
  );

  it.each([
    ['xargs cat .env', { deny: ['Read(./.env)', 'Bash(rm:*)'] }],
    ["echo x | xargs python3 -c 'print(1)' > .env", { deny: ['Edit(./.env)', 'Bash(rm:*)'] }],
    ["sed -n 's/a/b/e' .env", { deny: ['Read(./.env)', 'Bash(rm:*)'] }],
  ] as const)(
    '%s: a deny rule the call meets still denies, before the run-time ask',
    async (command, rules) => {
      const result = await place.decide(command, { deny: [...rules.deny] }, 'default');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('deny');
    },
  );
});
