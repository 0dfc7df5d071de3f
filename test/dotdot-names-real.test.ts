import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A name that begins with two dots is a name, not a way up (class `dotdot-names`,
 * docs/decisions/security-dotdot-names.md). Path rules were matched on the path relative to the
 * rule's anchor, and any relative path whose text began with `..` counted as outside the anchor, so
 * `Read(*.key)` never covered `..x.key` or `..data/token.key`, nor `Edit(*.key)` a write to them, in
 * every mode (bypassPermissions included).
 */

const marker = 'DOTDOT_SECRET_71be';
const names = ['..x.key', '...key', '..data/token.key', '..data/deep/id.key', '..a..b/c.key', '.. /s.key'];
const place = decisionPlace('efferent-dotdot-', ({ project }) => {
  for (const name of names) {
    mkdirSync(join(project, name, '..'), { recursive: true });
    writeFileSync(join(project, name), `${marker}\n`);
  }
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'plain.ts'), 'export const b = 2;\n');
});

const readRules = ['Read(*.key)', 'Read(**/*.key)', 'Read(./**/*.key)', 'Read(//**/*.key)'];
const editRules = ['Edit(*.key)', 'Edit(**/*.key)', 'Edit(./**/*.key)'];

type Call = { tool: string; input: Record<string, unknown> };
const readers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Read', input: { file_path: path } }),
  (path) => ({ tool: 'Grep', input: { pattern: 'x', path } }),
  (path) => ({ tool: 'Bash', input: { command: `cat '${path}'` } }),
  (path) => ({ tool: 'Bash', input: { command: `head -n 1 './${path}'` } }),
];
const writers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: 'x\n' } }),
  (path) => ({ tool: 'Edit', input: { file_path: path, old_string: marker, new_string: 'y' } }),
  (path) => ({ tool: 'Bash', input: { command: `echo x >> '${path}'` } }),
];

describe('names that begin with `..` are inside the directory that holds them (generated)', () => {
  it('real bash reads the file under that name (the files are real)', () => {
    expect(place.bash("cat '..x.key' '..data/token.key'")).toContain(marker);
  });

  it('read deny rules cover every `..`-prefixed name, for every reader', async () => {
    let count = 0;
    for (const name of names)
      for (const spelling of [name, `./${name}`, join(place.project, name)])
        for (const read of readers)
          for (const rule of readRules) {
            const { tool, input } = read(spelling);
            const result = await place.decideTool(tool, input, { deny: [rule] }, 'default');
            expect(result.behavior, `${tool} ${JSON.stringify(input)} ${rule}`).toBe('deny');
            count++;
          }
    expect(count).toBe(names.length * 3 * readers.length * readRules.length);
  });

  it('a directory whose name begins with `..` holding a denied file is covered when searched', async () => {
    for (const rule of ['Read(./..data/**)', 'Read(/..data/)', 'Read(..data)']) {
      const grep = await place.decideTool(
        'Grep',
        { pattern: 'x', path: '..data' },
        { deny: [rule] },
        'default',
      );
      expect(grep.behavior, rule).not.toBe('allow');
    }
    for (const rule of readRules) {
      const bash = await place.decide('grep -r x ..data', { deny: [rule] }, 'default');
      expect(bash.behavior, rule).not.toBe('allow');
    }
  });

  it('edit deny rules cover every `..`-prefixed name, in acceptEdits and bypassPermissions', async () => {
    for (const name of names)
      for (const write of writers)
        for (const rule of editRules)
          for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
            const { tool, input } = write(name);
            const result = await place.decideTool(tool, input, { deny: [rule] }, mode);
            expect(result.behavior, `${mode} ${tool} ${JSON.stringify(input)} ${rule}`).toBe('deny');
          }
  });

  it('rules anchored at a `..`-prefixed directory still match inside it and nothing beside it', async () => {
    for (const rule of ['Read(./..data/**)', 'Read(/..data/**)', 'Read(..data/)']) {
      const inside = await place.decideTool(
        'Read',
        { file_path: '..data/token.key' },
        { deny: [rule] },
        'default',
      );
      expect(inside.behavior, rule).toBe('deny');
      const beside = await place.decideTool('Read', { file_path: 'plain.ts' }, { deny: [rule] }, 'default');
      expect(beside.behavior, rule).toBe('allow');
    }
  });

  it('keeps ordinary neighbours allowed and rules outside the anchor unmatched', async () => {
    for (const rule of readRules) {
      for (const path of ['src/app.ts', 'plain.ts']) {
        const result = await place.decideTool('Read', { file_path: path }, { deny: [rule] }, 'default');
        expect(result.behavior, `${path} ${rule}`).toBe('allow');
      }
      expect((await place.decide('cat src/app.ts', { deny: [rule] }, 'default')).behavior).toBe('allow');
    }
    // A rule anchored in src/ does not reach a `..`-prefixed name next to src/.
    const sibling = await place.decideTool(
      'Read',
      { file_path: '..x.key' },
      { deny: ['Read(./src/**)'] },
      'default',
    );
    expect(sibling.behavior).toBe('allow');
  });
});
