import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import type { EditOutput } from '../shared/edit-plan.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { ReadTool } from '../read/read.ts';
import { MultiEditTool } from './multi-edit.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

const path = () => join(project.root, 'm.ts');
const multiEdit = (edits: unknown[]) =>
  runTool<EditOutput>(MultiEditTool, { file_path: path(), edits }, project.context);

describe('MultiEdit', () => {
  it('has the reference schema', () => {
    const schema = toolInputJsonSchema(MultiEditTool);
    expect(Object.keys(schema['properties'] as object)).toEqual(['file_path', 'edits']);
    expect(MultiEditTool.inputSchema.safeParse({ file_path: 'x', edits: [] }).success).toBe(false);
    expect(MultiEditTool.isConcurrencySafe({} as never)).toBe(false);
  });

  it('applies edits in order, each to the previous result, in one write', async () => {
    await writeFile(path(), 'let a = 1;\nlet b = a;\n');
    await runTool(ReadTool, { file_path: path() }, project.context);
    const outcome = await multiEdit([
      { old_string: 'let a = 1;', new_string: 'let alpha = 1;' },
      { old_string: 'let b = a;', new_string: 'let b = alpha;' },
      { old_string: 'let', new_string: 'const', replace_all: true },
    ]);
    expect(outcome.ok).toBe(true);
    expect(await readFile(path(), 'utf8')).toBe('const alpha = 1;\nconst b = alpha;\n');
    expect(outcome.ok && outcome.data.replacements).toBe(4);
  });

  it('writes nothing when any edit fails and names the failing edit', async () => {
    await writeFile(path(), 'one\ntwo\n');
    await runTool(ReadTool, { file_path: path() }, project.context);
    const outcome = await multiEdit([
      { old_string: 'one', new_string: 'uno' },
      { old_string: 'three', new_string: 'tres' },
    ]);
    expect(outcome).toMatchObject({ ok: false, code: 8 });
    expect(!outcome.ok && outcome.message).toMatch(/^Edit 2 of 2: String to replace not found/);
    expect(await readFile(path(), 'utf8')).toBe('one\ntwo\n');
    expect(await readdir(project.root)).toEqual(['m.ts']);
  });

  it('creates a file when the first edit has an empty old_string', async () => {
    const outcome = await multiEdit([
      { old_string: '', new_string: 'hello world\n' },
      { old_string: 'world', new_string: 'there' },
    ]);
    expect(outcome.ok).toBe(true);
    expect(await readFile(path(), 'utf8')).toBe('hello there\n');
  });

  it('requires a read first', async () => {
    await writeFile(path(), 'x\n');
    expect(await multiEdit([{ old_string: 'x', new_string: 'y' }])).toMatchObject({ ok: false, code: 6 });
  });
});
