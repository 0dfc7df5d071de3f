import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A prefix rule on a build tool (`Bash(make *)`, `Bash(go test *)`, `Bash(cargo test *)`) approves
 * running the project's build, not a program an option or command-line variable names (class
 * `build-tool-options`, docs/decisions/security-build-tool-options.md).
 */

const place = decisionPlace('efferent-build-tool-options-', (made) => {
  writeFileSync(join(made.project, 'Makefile'), 'test:\n\t@echo testing\n');
});

const risky: ReadonlyArray<readonly [string, readonly string[]]> = [
  [
    'Bash(make *)',
    [
      "make --eval='x:;@rm victim' x",
      "make --ev='x:;@rm victim' x",
      "make -E 'x:;@rm victim' x",
      "make -sE 'x:;@rm victim' x",
      "make -j4 -E'x:;@rm victim' x",
      "make SHELL='/bin/sh -c rm' test",
      'make SHELL=./evil.sh test',
      "make .SHELLFLAGS='-c rm victim;' test",
      "make MAKEFLAGS='--eval=x:;rm' test",
      'make MAKEFILES=./evil.mk test',
      "make CC='sh -c id' all",
      "make MAKE='sh -c id' all",
      'make SHELL:=./evil.sh test',
      'make SHELL+=x test',
    ],
  ],
  ['Bash(gmake *)', ["gmake --eval='x:;id' x", 'gmake SHELL=./evil.sh']],
  [
    'Bash(go test *)',
    [
      'go test -exec ./evil ./pkg',
      'go test -exec=./evil ./pkg',
      'go test --exec=./evil ./pkg',
      'go test -toolexec ./evil ./pkg',
      "go test -toolexec='sh -c id' ./pkg",
      "go test -ldflags='-linkmode=external -extld=./evil' ./pkg",
      "go test -ldflags '-extld ./evil' ./pkg",
    ],
  ],
  ['Bash(go build *)', ['go build -toolexec=./evil .', 'go build -ldflags=-extld=./evil .']],
  [
    'Bash(cargo test *)',
    [
      'cargo test --config \'build.rustc-wrapper="./evil"\'',
      'cargo test --config=\'target.x86_64-unknown-linux-gnu.runner="./evil"\'',
      'cargo test --config ./evil.toml',
      'cargo test --conf build.rustc=./evil',
    ],
  ],
];

describe('build tool options that name programs are not covered by prefix rules', () => {
  it('real make runs code from --eval and the program SHELL names', () => {
    const victim = join(place.project, 'victim');
    writeFileSync(victim, 'x\n');
    place.bash("make --eval='x:;@rm victim' x");
    expect(existsSync(victim)).toBe(false);
    writeFileSync(victim, 'x\n');
    writeFileSync(join(place.project, 'evil.sh'), 'rm victim\n', { mode: 0o755 });
    place.bash('make SHELL=./evil.sh test');
    expect(existsSync(victim)).toBe(false);
  });

  it.each(risky.flatMap(([rule, commands]) => commands.map((command) => [rule, command] as const)))(
    '%s does not allow %s',
    async (rule, command) => {
      const result = await place.decide(command, { allow: [rule] }, 'default');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    ['Bash(make *)', 'make test'],
    ['Bash(make *)', 'make -j4 test'],
    ['Bash(make *)', 'make VERBOSE=1 test'],
    ['Bash(make *)', 'make PREFIX=/usr/local build'],
    ['Bash(go build *)', "go build -ldflags='-s -w' ."],
    ['Bash(go build *)', 'go build -o bin/app .'],
    ['Bash(cargo test *)', 'cargo test --release'],
    ['Bash(cargo test *)', 'cargo test -p core -- --nocapture'],
  ])('%s still allows %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
