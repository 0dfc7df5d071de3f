import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A program whose outputs the engine does not model may write any path it names (class
 * `unmodelled-outputs`, docs/decisions/security-unmodelled-outputs.md). Protected files (git hooks
 * and configuration, shell start-up files, agent instructions) ask before any allow rule when the
 * engine knows a command writes them; for `xxd IN OUT`, `gcc -o OUT`, `shuf -o`, `iconv -o`,
 * `split IN PREFIX` or `openssl -out` it did not know, so `Bash(gcc *)` allowed
 * `gcc -o .git/hooks/pre-commit x.c` (an executable hook git runs on the next commit) and
 * `Bash(xxd *)` allowed `xxd -r -p cfg.hex .git/config` (core.fsmonitor runs on every git status).
 */

const place = decisionPlace('efferent-unmodelled-outputs-', (made) => {
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
  writeFileSync(
    join(made.project, 'cfg.hex'),
    Buffer.from('[core]\n\tfsmonitor = touch ran\n').toString('hex'),
  );
  mkdirSync(join(made.project, 'src'), { recursive: true });
  writeFileSync(join(made.project, 'src', 'hook.c'), 'int main(void) { return 0; }\n');
});

const installed = (program: string) =>
  spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).status === 0;

/** Protected targets, as a command may spell them. */
const targets = [
  '.git/hooks/pre-commit',
  '.git/config',
  './.git/config',
  'src/../.git/hooks/post-checkout',
  '.bashrc',
  '.envrc',
  'CLAUDE.md',
  '.claude/settings.json',
  '.vscode/tasks.json',
  '~/.bashrc',
];

/** [rule, template]: `@` is where the target goes. */
const writers: ReadonlyArray<readonly [string, string]> = [
  ['Bash(xxd *)', 'xxd -r -p cfg.hex @'],
  ['Bash(xxd *)', 'xxd -r cfg.hex @'],
  ['Bash(gcc *)', 'gcc -o @ src/hook.c'],
  ['Bash(gcc *)', 'gcc -o@ src/hook.c'],
  ['Bash(gcc *)', 'gcc src/hook.c -O2 -o @'],
  ['Bash(gcc *)', 'gcc -Wl,-o,@ src/hook.c'],
  ['Bash(cc *)', 'cc -o @ src/hook.c'],
  ['Bash(clang *)', 'clang -o @ src/hook.c'],
  ['Bash(go build *)', 'go build -o @ .'],
  ['Bash(go build *)', 'go build -o=@ .'],
  ['Bash(rustc *)', 'rustc -o @ src/main.rs'],
  ['Bash(shuf *)', 'shuf -o @ README.md'],
  ['Bash(shuf *)', 'shuf --output=@ README.md'],
  ['Bash(iconv *)', 'iconv -f utf8 -t utf8 -o @ README.md'],
  ['Bash(iconv *)', 'iconv -f utf8 -t utf8 --output=@ README.md'],
  ['Bash(split *)', 'split -l 1 README.md @'],
  ['Bash(openssl *)', 'openssl enc -in README.md -out @'],
  ['Bash(pandoc *)', 'pandoc -o @ README.md'],
  ['Bash(tsc *)', 'tsc --outFile @ src/a.ts'],
  ['Bash(base64 *)', 'base64 -d cfg.b64 -o @'],
];

describe('a program whose outputs are not modelled does not write protected paths under an allow rule', () => {
  it('real gcc writes an executable hook and real xxd a git configuration', () => {
    // In a repository of its own, so the decisions below see an ordinary project.
    place.bash('mkdir -p real && cd real && git init -q && xxd -r -p ../cfg.hex .git/config');
    expect(readFileSync(join(place.project, 'real', '.git', 'config'), 'utf8')).toContain('fsmonitor');
    if (!installed('gcc')) return;
    place.bash('cd real && gcc -o .git/hooks/pre-commit ../src/hook.c');
    expect(statSync(join(place.project, 'real', '.git', 'hooks', 'pre-commit')).mode & 0o111).not.toBe(0);
  });

  const commands = writers.flatMap(([rule, template]) =>
    targets.map((target) => [rule, template.replace('@', target)] as const),
  );
  it(`${commands.length} commands × default and acceptEdits are never allowed by their rule`, async () => {
    const allowed: string[] = [];
    for (const [rule, command] of commands)
      for (const mode of ['default', 'acceptEdits'] as const) {
        const result = await place.decide(command, { allow: [rule] }, mode);
        if (result.behavior === 'allow') allowed.push(`${command} (${rule}, ${mode})`);
      }
    expect(allowed).toEqual([]);
  });

  it.each([
    ['Bash(gcc *)', 'gcc -o build/app src/hook.c'],
    ['Bash(gcc *)', 'gcc -O2 -Wall -c src/hook.c'],
    ['Bash(go build *)', 'go build -o bin/app .'],
    ['Bash(go build *)', 'go build ./...'],
    ['Bash(xxd *)', 'xxd README.md'],
    ['Bash(xxd *)', 'xxd -r -p cfg.hex out.bin'],
    ['Bash(shuf *)', 'shuf -o shuffled.txt README.md'],
    ['Bash(tsc *)', 'tsc --outDir dist'],
    ['Bash(git *)', 'git add CLAUDE.md'],
    ['Bash(git *)', 'git diff -- .git/config'],
    ['Bash(npm run *)', 'npm run build'],
  ])('%s still allows %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
