import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A read deny rule whose wildcards start above a directory still covers files inside it (class
 * `reaching-rules`, docs/decisions/security-reaching-rules.md). `Read(*.key)`, `Read(**\/*.key)`,
 * `Read(./*\/id.key)` or `Read(src/*.key)` were only looked for *inside* a directory a recursive
 * reader was given, so `grep -r x src`, `rg x src` and `git grep x -- src` printed `src/id.key`; and
 * a rule's literal directory ended mid-name (`./s*\/id.key` was "confined to `s`"), so globs over
 * `src/` were not seen to reach it either.
 */

const marker = 'REACHING_SECRET_5d02';
const place = decisionPlace('efferent-reaching-', ({ project }) => {
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  mkdirSync(join(project, 'lib', 'deep'), { recursive: true });
  writeFileSync(join(project, 'src', 'id.key'), `${marker}\n`);
  writeFileSync(join(project, 'src', 'deep', 'id.key'), `${marker}\n`);
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'lib', 'deep', 'util.ts'), 'export const u = 1;\n');
  writeFileSync(join(project, 'lib', 'index.ts'), 'export const i = 1;\n');
});

/** Rules written many ways, each covering src/id.key or src/deep/id.key from above src/. */
const rules = [
  'Read(*.key)',
  'Read(**/*.key)',
  'Read(./**/*.key)',
  'Read(/**/*.key)',
  'Read(./*/id.key)',
  'Read(./s*/id.key)',
  'Read(./s?c/**)',
  'Read(./[s]rc/deep/*)',
  'Read(src/*.key)',
  'Read(deep/id.key)',
  'Read(id.key)',
];
/** Readers that read every file under the directory they are given (none follows links). */
const readers = [
  'grep -r x D',
  'grep -rn x D/',
  'grep -R x ./D',
  'rg x D',
  'rg -uu x D',
  'rg --hidden x D/',
  'git grep x -- D',
  'ag x D',
  'cat D/*',
  'head D/*',
];

describe('deny rules that reach into a searched directory from above (generated)', () => {
  it('real grep prints the key through the recursive read (the attack is real)', () => {
    expect(place.bash('grep -r . src')).toContain(marker);
  });

  it('never allows a recursive or pattern read of a directory a rule reaches into', async () => {
    let count = 0;
    for (const rule of rules)
      for (const reader of readers)
        for (const directory of ['src', './src', 'src/deep']) {
          const command = reader.replaceAll('D', directory);
          if (rule === 'Read(src/*.key)' && directory === 'src/deep') continue;
          if (rule === 'Read(./s?c/**)' || rule === 'Read(./*/id.key)' || rule === 'Read(./s*/id.key)')
            if (directory === 'src/deep') continue;
          const result = await place.decide(command, { deny: [rule] }, 'default');
          expect(result.behavior, `${command} with ${rule}`).not.toBe('allow');
          count++;
        }
    expect(count).toBeGreaterThan(250);
  });

  it('keeps the same readers allowed over a directory that holds nothing a rule covers', async () => {
    for (const rule of [...rules, 'Read(./.env)', 'Read(~/.ssh/**)'])
      for (const reader of readers)
        for (const directory of ['lib', './lib', 'lib/deep']) {
          const command = reader.replaceAll('D', directory);
          // ag is not a known read-only program; a pattern under a rule's anchor asks without a scan.
          if (command.startsWith('ag ') || command.includes('*')) continue;
          const result = await place.decide(command, { deny: [rule] }, 'default');
          expect(result.behavior, `${command} with ${rule}`).toBe('allow');
        }
  });
});

describe('edit deny rules that reach into a directory a command changes as a whole (generated)', () => {
  const editRules = [
    'Edit(*.key)',
    'Edit(**/*.key)',
    'Edit(./**/id.key)',
    'Edit(deep/id.key)',
    'Edit(id.key)',
  ];
  const writers: Array<[string, string]> = [
    ['rm -rf D', 'Bash(rm *)'],
    ['rm -r D', 'Bash(rm *)'],
    ['chmod -R 777 D', 'Bash(chmod *)'],
    ['git checkout -- D', 'Bash(git checkout *)'],
    ['git restore D', 'Bash(git restore *)'],
    ['git clean -fdx D', 'Bash(git clean *)'],
    ['cp -r lib/. D', 'Bash(cp *)'],
    ['rsync -a --delete lib/ D', 'Bash(rsync *)'],
    ['find D -delete', 'Bash(find *)'],
  ];

  it('never allows a command that changes a directory holding a file an Edit deny rule covers', async () => {
    let count = 0;
    for (const rule of editRules)
      for (const [writer, allow] of writers)
        for (const directory of ['src', './src/']) {
          const command = writer.replaceAll('D', directory);
          for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
            const result = await place.decide(command, { deny: [rule], allow: [allow] }, mode);
            expect(result.behavior, `${mode} ${command} with ${rule}`).not.toBe('allow');
            count++;
          }
        }
    expect(count).toBe(editRules.length * writers.length * 4);
  });

  it('keeps the same commands allowed on a directory that holds nothing a rule covers', async () => {
    for (const rule of editRules)
      for (const [writer, allow] of writers) {
        if (writer.startsWith('find')) continue; // `find -delete` asks under any allow rule
        const command = writer.replaceAll('D', 'lib/deep').replace('lib/. lib/deep', 'src/app.ts lib/deep');
        const result = await place.decide(command, { deny: [rule], allow: [allow] }, 'acceptEdits');
        expect(result.behavior, `${command} with ${rule}`).toBe('allow');
      }
  });
});
