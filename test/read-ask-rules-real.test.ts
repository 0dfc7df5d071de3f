import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A Read ask rule asks before the file is read, whoever reads it (class `read-ask-rules`,
 * docs/decisions/security-read-ask-rules.md). Bash reads consulted the Read deny rules only, so with
 * `Read(./secrets/**)` or `Read(./.env)` in `ask`, `cat .env`, `grep -r TOKEN .`, `rg TOKEN` and
 * `git grep TOKEN` printed the files with no question, and the Grep tool searched into them when
 * given a directory above them.
 */

const marker = 'ASKRULE_SECRET_9e41';
const place = decisionPlace('efferent-read-ask-', ({ project }) => {
  mkdirSync(join(project, 'secrets', 'deep'), { recursive: true });
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, '.env'), `TOKEN=${marker}\n`);
  writeFileSync(join(project, 'secrets', 'token.txt'), `${marker}\n`);
  writeFileSync(join(project, 'secrets', 'deep', 'id.key'), `${marker}\n`);
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const rules = ['Read(./.env)', 'Read(.env)', 'Read(./secrets/**)', 'Read(*.key)', 'Read(**/token.txt)'];
/** Readers of what each rule covers: named files, and recursive reads of a directory above them. */
const namedReads: Record<string, string[]> = {
  'Read(./.env)': [
    'cat .env',
    'head -n1 ./.env',
    'base64 .env',
    'grep TOKEN .env',
    'sort < .env',
    'awk 1 .env',
  ],
  'Read(.env)': ['cat .env', 'less .env', 'xxd .env'],
  'Read(./secrets/**)': ['cat secrets/token.txt', 'tail secrets/deep/id.key', 'grep -r x secrets'],
  'Read(*.key)': ['cat secrets/deep/id.key', 'od -c secrets/deep/id.key'],
  'Read(**/token.txt)': ['cat secrets/token.txt', 'wc -c secrets/token.txt'],
};
const recursiveReads = [
  'grep -r TOKEN .',
  'grep -rn x',
  'rg TOKEN',
  'rg -uu x .',
  'git grep TOKEN',
  'cat .e* secrets/* secrets/*/*',
];

describe('Read ask rules hold for Bash reads and searches (generated)', () => {
  it('real bash prints the files (the reads are real)', () => {
    expect(place.bash('cat .env; grep -r . secrets')).toContain(marker);
  });

  it('named reads of a file an ask rule covers ask, in default and acceptEdits', async () => {
    let count = 0;
    for (const rule of rules)
      for (const command of namedReads[rule] ?? [])
        for (const mode of ['default', 'acceptEdits'] as const) {
          const result = await place.decide(command, { ask: [rule] }, mode);
          expect(result.behavior, `${mode} ${command} ${rule}`).toBe('ask');
          count++;
        }
    expect(count).toBe(32);
  });

  it('recursive reads of a directory holding such a file ask', async () => {
    for (const rule of rules)
      for (const command of recursiveReads) {
        const result = await place.decide(command, { ask: [rule] }, 'default');
        expect(result.behavior, `${command} ${rule}`).toBe('ask');
      }
  });

  it('the Grep tool asks before searching a directory holding such a file', async () => {
    for (const rule of rules)
      for (const path of [undefined, '.', place.project]) {
        const input = path === undefined ? { pattern: 'TOKEN' } : { pattern: 'TOKEN', path };
        const result = await place.decideTool('Grep', input, { ask: [rule] }, 'default');
        expect(result.behavior, `Grep ${JSON.stringify(input)} ${rule}`).toBe('ask');
      }
  });

  it('dontAsk turns those questions into denials', async () => {
    const result = await place.decide('cat .env', { ask: ['Read(./.env)'] }, 'dontAsk');
    expect(result.behavior).toBe('deny');
  });

  it('reads of other files stay allowed', async () => {
    for (const rule of rules) {
      for (const command of ['cat src/app.ts', 'grep -rn TODO src', 'rg x src', 'ls -la', 'git status']) {
        const result = await place.decide(command, { ask: [rule] }, 'default');
        expect(result.behavior, `${command} ${rule}`).toBe('allow');
      }
      const grep = await place.decideTool('Grep', { pattern: 'x', path: 'src' }, { ask: [rule] }, 'default');
      expect(grep.behavior, rule).toBe('allow');
    }
  });
});

describe('Edit ask rules hold for commands that change what they name (generated)', () => {
  const askRules = [
    'Edit(./secrets/**)',
    'Edit(*.key)',
    'Edit(./secrets/deep/id.key)',
    'Write(**/token.txt)',
  ];
  const changers: Array<[string, string]> = [
    ['rm -rf secrets', 'Bash(rm *)'],
    ['git checkout -- secrets', 'Bash(git checkout *)'],
    ['git restore secrets', 'Bash(git restore *)'],
    ['chmod -R 700 secrets', 'Bash(chmod *)'],
    ['git clean -fdx secrets', 'Bash(git clean *)'],
  ];

  it('asks even under an allow rule for the command, in acceptEdits', async () => {
    let count = 0;
    for (const rule of askRules)
      for (const [command, allow] of changers) {
        const result = await place.decide(command, { ask: [rule], allow: [allow] }, 'acceptEdits');
        expect(result.behavior, `${command} with ${rule}`).toBe('ask');
        count++;
      }
    expect(count).toBe(20);
  });

  it('keeps commands on other directories allowed', async () => {
    for (const rule of askRules)
      for (const [command, allow] of changers) {
        const other = command.replace('secrets', 'src');
        const result = await place.decide(other, { ask: [rule], allow: [allow] }, 'acceptEdits');
        expect(result.behavior, `${other} with ${rule}`).toBe('allow');
      }
  });
});
