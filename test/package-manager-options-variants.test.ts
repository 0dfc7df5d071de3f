import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * npm settings that name a program, given as options (class `prefix-options`, extended in
 * docs/decisions/security-package-manager-options.md). `--script-shell` and `--node-options` asked
 * under a prefix rule, but `npm help --browser=./x`, `npm config edit --editor=./x`,
 * `npm explore foo --shell=./x`, `npm install --git=./x`, `npm init --init-module=./x.js`,
 * `npm install --node-gyp=./x`, `pnpm install --config.script-shell=./x` and
 * `yarn install --use-yarnrc ./x` were covered by `Bash(npm help:*)` and the like.
 */

const place = decisionPlace('efferent-package-options-');

const rules: Array<{ rule: string; command: string }> = [
  { rule: 'Bash(npm install:*)', command: 'npm install' },
  { rule: 'Bash(npm ci:*)', command: 'npm ci' },
  { rule: 'Bash(npm run:*)', command: 'npm run build' },
  { rule: 'Bash(npm test:*)', command: 'npm test' },
  { rule: 'Bash(npm help:*)', command: 'npm help install' },
  { rule: 'Bash(npm config:*)', command: 'npm config edit' },
  { rule: 'Bash(npm explore:*)', command: 'npm explore lodash' },
  { rule: 'Bash(npm init:*)', command: 'npm init -y' },
  { rule: 'Bash(pnpm install:*)', command: 'pnpm install' },
  { rule: 'Bash(yarn install:*)', command: 'yarn install' },
];

const programOptions = [
  '--shell',
  '--git',
  '--editor',
  '--browser',
  '--init-module',
  '--node-gyp',
  '--python',
];

/** Each option as `--x=./evil`, `--x ./evil`, and before the subcommand's own words. */
const spellings = (option: string): Array<(command: string) => string> => [
  (command) => `${command} ${option}=./evil`,
  (command) => `${command} ${option} ./evil`,
  (command) => {
    const [program, ...rest] = command.split(' ');
    return [program, `${option}=./evil`, ...rest].join(' ');
  },
];

describe('package manager options that name programs are not covered by prefix rules (generated)', () => {
  it('asks for every program-valued option in every spelling under every rule', async () => {
    let count = 0;
    for (const { rule, command } of rules)
      for (const option of programOptions)
        for (const spell of spellings(option)) {
          const line = spell(command);
          const result = await place.decide(line, { allow: [rule] }, 'default');
          expect(result.behavior, `${line} under ${rule}`).toBe('ask');
          expect(result.message, line).toMatch(/\.$/);
          count++;
        }
    expect(count).toBe(rules.length * programOptions.length * 3);
  });

  it('asks for pnpm --config.KEY and yarn --use-yarnrc', async () => {
    for (const [line, rule] of [
      ['pnpm install --config.script-shell=./evil', 'Bash(pnpm install:*)'],
      ['pnpm install --config.git=./evil', 'Bash(pnpm install:*)'],
      ['pnpm run build --config.node-options=--require=./x.js', 'Bash(pnpm run:*)'],
      ['yarn install --use-yarnrc ./yarnrc', 'Bash(yarn install:*)'],
      ['yarn install --use-yarnrc=./yarnrc', 'Bash(yarn install:*)'],
    ] as const)
      expect((await place.decide(line, { allow: [rule] }, 'default')).behavior, line).toBe('ask');
  });

  it('keeps everyday package commands allowed under their rules', async () => {
    for (const [line, rule] of [
      ['npm install lodash', 'Bash(npm install:*)'],
      ['npm install --save-dev vitest', 'Bash(npm install:*)'],
      ['npm ci --ignore-scripts', 'Bash(npm ci:*)'],
      ['npm run build', 'Bash(npm run:*)'],
      ['npm test -- --shell=x', 'Bash(npm test:*)'],
      ['pnpm install --frozen-lockfile', 'Bash(pnpm install:*)'],
      ['yarn install --frozen-lockfile', 'Bash(yarn install:*)'],
    ] as const) {
      const result = await place.decide(line, { allow: [rule] }, 'default');
      expect(result.behavior, `${line}: ${result.message ?? ''}`).toBe('allow');
    }
  });
});
