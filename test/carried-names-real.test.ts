import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A copy or move writes names its words do not spell (class `carried-names`,
 * docs/decisions/security-carried-names.md). With a repository holding `template/.envrc`,
 * `template/.git/config` or `template/CLAUDE.md`, acceptEdits allowed `cp -r template/. .`,
 * `mv template/* .`, `cp template/.[a-z]* .` and `rsync -a template/ ./`: each writes protected
 * files into the project root, though only `template` and `.` were judged. Every name a source
 * carries into its destination is now judged as a write.
 */

/** One protected entry per template, so each one alone must make the copy ask. */
const entries = [
  '.envrc',
  '.git/config',
  '.git/hooks/post-checkout',
  '.vscode/tasks.json',
  '.husky/pre-commit',
  'CLAUDE.md',
  'AGENTS.md',
  '.pdbrc',
  '.hg/hgrc',
  'deep/er/.nvim.lua',
  '.npmrc',
  'mise.toml',
];

const place = decisionPlace('efferent-carried-', ({ project }) => {
  for (const [index, entry] of entries.entries()) {
    const file = join(project, `t${index}`, entry);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'echo pwned\n');
    writeFileSync(join(project, `t${index}`, 'readme.txt'), 'ok\n');
  }
  mkdirSync(join(project, 'src', 'lib'), { recursive: true });
  mkdirSync(join(project, 'out'), { recursive: true });
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'src', 'lib', 'util.ts'), 'export const b = 2;\n');
});

/** Copies and moves that carry a template's names into a destination (T: template, D: destination). */
const carriers = [
  'cp -r T/. D',
  'cp -R T/. D/',
  'cp -a T/. D',
  'cp -r T/* D',
  'cp -r T/.[a-z]* D',
  'cp -a T D',
  'mv T/* D',
  'mv T/.[!.]* D',
  'rsync -a T/ D',
  'rsync -r T/ D/',
  'cp -rt D T/.',
  'cp -r --target-directory=D T/.',
];
const destinations = ['.', 'src', 'out/'];

/** Whether bash's expansion of the command (dotglob off) carries the entry: `*` skips dot names, `.[…]*` takes only them. */
const carries = (command: string, entry: string) => {
  const dotted = entry.startsWith('.');
  if (command.includes('T/* ')) return !dotted;
  if (command.includes('T/.[')) return dotted;
  return true;
};

describe('carried names: a copy or move is judged by every name it writes (generated)', () => {
  it('real cp writes the template entry into the project root (the attack is real)', () => {
    const out = place.bash('cp -r t0/. out/ && ls -a out');
    expect(out).toContain('.envrc');
    expect(existsSync(join(place.project, 'out', '.envrc'))).toBe(true);
  });

  it('never allows a copy that carries a protected entry, in acceptEdits or under a cp/mv rule', async () => {
    let count = 0;
    for (const [index, entry] of entries.entries())
      for (const shape of carriers)
        for (const destination of destinations) {
          if (!carries(shape, entry)) continue;
          const command = shape.replaceAll('T', `t${index}`).replaceAll('D', destination);
          const accept = await place.decide(command, {}, 'acceptEdits');
          expect(accept.behavior, `acceptEdits ${command}`).not.toBe('allow');
          expect(accept.message, command).toMatch(/\.$/);
          const ruled = await place.decide(
            command,
            { allow: ['Bash(cp *)', 'Bash(mv *)', 'Bash(rsync *)'] },
            'default',
          );
          expect(ruled.behavior, `rule ${command}`).not.toBe('allow');
          count += 2;
        }
    expect(count).toBeGreaterThan(600);
  });

  it('keeps copies of ordinary trees and files allowed in acceptEdits', async () => {
    for (const command of [
      'cp -r src/. out',
      'cp -a src out/',
      'cp src/*.ts out/',
      'cp -r src/* out',
      'mv src/app.ts src/lib/',
      'cp src/app.ts src/copy.ts',
      'cp -r t0/readme.txt out/',
    ]) {
      expect((await place.decide(command, {}, 'acceptEdits')).behavior, command).toBe('allow');
    }
  });

  it('a file copied to a new name carries only that name', async () => {
    const result = await place.decide('cp t5/CLAUDE.md out/notes.md', {}, 'acceptEdits');
    expect(result.message ?? '').not.toMatch(/carries/);
  });
});
