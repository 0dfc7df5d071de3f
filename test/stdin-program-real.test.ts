import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * An interpreter that reads its program from standard input or a descriptor runs code that only
 * exists when the command runs (class `stdin-program`, docs/decisions/security-stdin-program.md).
 * `echo 'rm x' | sh`, `bash <(…)`, `source /dev/stdin` and `python3` fed by a pipe slipped past a
 * `Bash(rm *)` deny in bypassPermissions mode, where only deny rules stand in the way. Real bash
 * first shows the payload runs; the engine must then not allow it. A literal here-string or heredoc
 * stays analysed as code, so its commands meet the rules themselves.
 */

const place = decisionPlace('efferent-stdin-program-');

const decide = (command: string, deny = ['Bash(rm:*)']) =>
  place.decide(command, { deny }, 'bypassPermissions');

/** Commands that print the payload `rm victim` (as shell code, or as Python code for the interpreters). */
const feeders = ["echo 'rm victim'", "printf 'rm victim\\n'", "printf '%s\\n' 'rm victim'", 'cat payload.sh'];

/** Ways to make a shell run what a feeder prints (F). */
const shellForms = [
  'F | sh',
  'F | bash',
  'F | bash -s',
  'F | sh -s -- a b',
  'F | bash -',
  'F | dash',
  'F | busybox sh',
  'F | env sh',
  'F | timeout 5 bash',
  'F | nice -n 5 sh -e',
  'F | sh /dev/stdin',
  'F | bash /dev/fd/0',
  'F | bash /proc/self/fd/0',
  'F | source /dev/stdin',
  'F | . /dev/stdin',
  'sh < <(F)',
  'bash <(F)',
  'sh -e <(F)',
  'source <(F)',
  '. <(F)',
  'bash 3< <(F) /dev/fd/3',
  '{ F; } | bash',
  '(F) | sh',
];

/** Python code that removes the file, fed to interpreters that read their program from stdin. */
const pythonFeeders = ['echo \'import os; os.system("rm victim")\'', 'cat payload.py'];
const interpreterForms = [
  'F | python3',
  'F | python3 -',
  'F | python3 -u',
  'python3 <(F)',
  'python3 /dev/stdin < <(F)',
];

function runs(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  writeFileSync(join(place.project, 'payload.sh'), 'rm victim\n');
  writeFileSync(join(place.project, 'payload.py'), 'import os; os.system("rm victim")\n');
  spawnSync('bash', ['-c', command], { cwd: place.project, encoding: 'utf8', timeout: 20_000 });
  return !existsSync(victim);
}

describe('a program read from standard input or a descriptor is code the engine cannot see', () => {
  it('real bash runs the payload for each shape', () => {
    expect(runs("echo 'rm victim' | sh")).toBe(true);
    expect(runs("bash <(printf 'rm victim\\n')")).toBe(true);
    expect(runs("echo 'rm victim' | source /dev/stdin")).toBe(true);
    expect(runs("sh < <(echo 'rm victim')")).toBe(true);
    expect(runs('cat payload.py | python3 -')).toBe(true);
    expect(runs("sh /dev/stdin <<< 'rm victim'")).toBe(true);
  });

  it.each(shellForms.flatMap((form) => feeders.map((feeder) => form.replace('F', feeder))))(
    '%s is not allowed past Bash(rm:*) in bypassPermissions',
    async (command) => {
      const result = await decide(command);
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each(interpreterForms.flatMap((form) => pythonFeeders.map((feeder) => form.replace('F', feeder))))(
    '%s is not allowed past Bash(rm:*) in bypassPermissions',
    async (command) => {
      const result = await decide(command);
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    "sh /dev/stdin <<< 'rm victim'",
    "bash /dev/fd/0 <<< 'rm victim'",
    "bash - <<< 'rm victim'",
    "sh -s <<'EOF'\nrm victim\nEOF",
  ])('%s: the literal body is analysed and the deny rule matches', async (command) => {
    const result = await decide(command);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('deny');
  });

  it.each([
    "sh <<< 'ls -la'",
    "bash /dev/stdin <<< 'git status'",
    'echo hi | cat',
    'sh ./build.sh',
    'bash -c "ls -la"',
    'python3 script.py',
  ])('%s stays allowed in bypassPermissions', async (command) => {
    const result = await decide(command);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
