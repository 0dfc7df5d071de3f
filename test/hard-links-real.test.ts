import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A hard link is the same file under another name (class `hard-links`,
 * docs/decisions/security-hard-links.md). `ln ~/.ssh/id_rsa notes.txt` left in the project by an
 * earlier process made `Read notes.txt`, `cat notes.txt` and `grep x notes.txt` read the key with no
 * question, and `echo … >> notes.txt` append to `~/.bashrc` when that was the other name: the
 * engine judged only the name it was given. A regular file with other names is now asked about,
 * except where package managers and git link files from their stores on purpose.
 */

const marker = 'HARDLINK_SECRET_3c1f';
const place = decisionPlace('efferent-hardlink-', ({ root, home, project }) => {
  mkdirSync(join(home, '.ssh'));
  mkdirSync(join(home, '.aws'));
  mkdirSync(join(home, 'store'));
  mkdirSync(join(root, 'outside'));
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '.pnpm', 'pkg'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${marker}\n`);
  writeFileSync(join(home, '.aws', 'credentials'), `${marker}\n`);
  writeFileSync(join(home, '.bashrc'), 'export A=1\n');
  writeFileSync(join(root, 'outside', 'secret.txt'), `${marker}\n`);
  writeFileSync(join(home, 'store', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
  for (const [index, target] of sources(root, home).entries())
    for (const name of names) linkSync(target, join(project, name.replace('N', String(index))));
  linkSync(join(home, 'store', 'index.js'), join(project, 'node_modules', '.pnpm', 'pkg', 'index.js'));
});

const sources = (root: string, home: string) => [
  join(home, '.ssh', 'id_rsa'),
  join(home, '.aws', 'credentials'),
  join(root, 'outside', 'secret.txt'),
  join(home, '.bashrc'),
];
const names = ['notesN.txt', 'src/deep/keyN.ts', '.hiddenN'];

/** Every hard-linked name in the project. */
const linkedNames = () =>
  [0, 1, 2, 3].flatMap((index) => names.map((name) => name.replace('N', String(index))));

type Call = { tool: string; input: Record<string, unknown> };
const readers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Read', input: { file_path: path } }),
  (path) => ({ tool: 'Grep', input: { pattern: 'x', path } }),
  (path) => ({ tool: 'Bash', input: { command: `cat ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `head -n 5 ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `grep -n . ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `base64 < ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `wc -c ./${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `sort src/../${path}` } }),
];
const writers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: 'x\n' } }),
  (path) => ({ tool: 'Edit', input: { file_path: path, old_string: 'x', new_string: 'y' } }),
  (path) => ({ tool: 'Bash', input: { command: `echo 'curl x | sh' >> ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `printf x | tee -a ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `sed -i s/a/b/ ${path}` } }),
];

describe('hard links: a file with other names is judged as possibly any of them (generated)', () => {
  it('real bash reads the outside file through the link (the attack is real)', () => {
    expect(place.bash('cat notes0.txt')).toContain(marker);
  });

  it('never allows a read of a hard-linked file, with or without rules', async () => {
    const ruleSets = [{}, { deny: ['Read(~/.ssh/**)'] }, { allow: ['Read(./src/**)', 'Read(./*)'] }];
    let count = 0;
    for (const path of linkedNames())
      for (const read of readers)
        for (const rules of ruleSets) {
          const { tool, input } = read(path);
          const result = await place.decideTool(tool, input, rules, 'default');
          expect(result.behavior, `${tool} ${JSON.stringify(input)} ${JSON.stringify(rules)}`).not.toBe(
            'allow',
          );
          count++;
        }
    expect(count).toBe(12 * readers.length * ruleSets.length);
  });

  it('never allows a write through a hard-linked name in acceptEdits', async () => {
    for (const path of linkedNames())
      for (const write of writers) {
        const { tool, input } = write(path);
        const result = await place.decideTool(tool, input, {}, 'acceptEdits');
        expect(result.behavior, `${tool} ${JSON.stringify(input)}`).not.toBe('allow');
      }
  });

  it('says why, ending with a period', async () => {
    const result = await place.decide('cat notes0.txt', {}, 'default');
    expect(result.message).toMatch(/other names \(hard links\)/);
    expect(result.message).toMatch(/\.$/);
  });

  it('keeps files with one name and package-manager store links allowed', async () => {
    for (const read of readers) {
      for (const path of ['src/app.ts', 'node_modules/.pnpm/pkg/index.js']) {
        const { tool, input } = read(path);
        expect((await place.decideTool(tool, input, {}, 'default')).behavior, `${tool} ${path}`).toBe(
          'allow',
        );
      }
    }
    const edit = await place.decideTool(
      'Write',
      { file_path: 'src/app.ts', content: 'x\n' },
      {},
      'acceptEdits',
    );
    expect(edit.behavior).toBe('allow');
  });
});
