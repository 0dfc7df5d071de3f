import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import { ReadTool } from '../read/read.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { locateCells } from './json-spans.ts';
import { type NotebookEditOutput, NotebookEditTool } from './notebook-edit.ts';
import { spliceNotebook } from './notebook-splice.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

// Written by hand with Jupyter's layout (indent 1, sorted keys) plus one oddly spaced cell that must survive.
const notebookText = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\\n",
    "Some “text”"
   ]
  },
  {"cell_type":"code","execution_count":1,"id":"calc","metadata":{"tags":["x"]},"outputs":[{"name":"stdout","output_type":"stream","text":["2\\n"]}],"source":["print(1+1)"]},
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "last",
   "metadata": {},
   "outputs": [],
   "source": [
    "x = 1"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "name": "python3"},
  "language_info": {"name": "python"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`;

const path = () => join(project.root, 'nb.ipynb');
const edit = (input: Record<string, unknown>) =>
  runTool<NotebookEditOutput>(NotebookEditTool, { notebook_path: path(), ...input }, project.context);

async function seed(text = notebookText, read = true): Promise<void> {
  await writeFile(path(), text);
  if (read) expect((await runTool(ReadTool, { file_path: path() }, project.context)).ok).toBe(true);
}

function cellText(text: string, index: number): string {
  const span = locateCells(text).cells[index];
  return span ? text.slice(span.start, span.end) : '';
}

describe('NotebookEdit', () => {
  it('has the reference schema, is deferred and not concurrency-safe', () => {
    expect(Object.keys(toolInputJsonSchema(NotebookEditTool)['properties'] as object)).toEqual([
      'notebook_path',
      'cell_id',
      'new_source',
      'cell_type',
      'edit_mode',
    ]);
    expect(NotebookEditTool.shouldDefer).toBe(true);
    expect(NotebookEditTool.isConcurrencySafe({} as never)).toBe(false);
  });

  it('replaces one cell and leaves every other byte alone', async () => {
    await seed();
    const outcome = await edit({ cell_id: 'calc', new_source: 'print(2+2)\nprint(3)' });
    expect(outcome.ok).toBe(true);
    const after = await readFile(path(), 'utf8');
    expect(cellText(after, 0)).toBe(cellText(notebookText, 0));
    expect(cellText(after, 2)).toBe(cellText(notebookText, 2));
    const before = locateCells(notebookText);
    const now = locateCells(after);
    expect(after.slice(0, now.array.start)).toBe(notebookText.slice(0, before.array.start));
    expect(after.slice(now.array.end)).toBe(notebookText.slice(before.array.end));
    const cell = JSON.parse(after).cells[1];
    expect(cell).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: 'calc',
      metadata: { tags: ['x'] },
      outputs: [],
      source: ['print(2+2)\n', 'print(3)'],
    });
    expect(Object.keys(cell)).toEqual([
      'cell_type',
      'execution_count',
      'id',
      'metadata',
      'outputs',
      'source',
    ]);
  });

  it('inserts after a cell, at the top, and by cell-N index', async () => {
    await seed();
    const after = await edit({
      edit_mode: 'insert',
      cell_id: 'intro',
      cell_type: 'markdown',
      new_source: 'Inserted',
    });
    expect(after.ok).toBe(true);
    const top = await edit({ edit_mode: 'insert', cell_type: 'code', new_source: 'import os' });
    expect(top.ok).toBe(true);
    const text = await readFile(path(), 'utf8');
    const cells = JSON.parse(text).cells;
    expect(cells.map((cell: { source: string[] }) => cell.source.join(''))).toEqual([
      'import os',
      '# Title\nSome “text”',
      'Inserted',
      'print(1+1)',
      'x = 1',
    ]);
    expect(cells[0].id).toMatch(/^[0-9a-f]{8}$/);
    expect(cellText(text, 3)).toBe(cellText(notebookText, 1));
    const byIndex = await edit({ cell_id: 'cell-4', new_source: 'x = 2' });
    expect(byIndex.ok && byIndex.data.cellId).toBe('last');
  });

  it('deletes first, middle, last and only cells', async () => {
    await seed();
    expect((await edit({ edit_mode: 'delete', cell_id: 'calc', new_source: '' })).ok).toBe(true);
    expect((await edit({ edit_mode: 'delete', cell_id: 'last', new_source: '' })).ok).toBe(true);
    expect((await edit({ edit_mode: 'delete', cell_id: 'intro', new_source: '' })).ok).toBe(true);
    const text = await readFile(path(), 'utf8');
    expect(JSON.parse(text).cells).toEqual([]);
    expect(text).toContain('"metadata": {\n  "kernelspec": {"display_name": "Python 3", "name": "python3"}');
    const reinserted = spliceNotebook(text, {
      kind: 'insert',
      afterIndex: undefined,
      cell: { cell_type: 'markdown', metadata: {}, source: ['a'] },
    });
    expect(reinserted).toContain(' "cells": [\n  {\n   "cell_type": "markdown",');
  });

  it('refuses unread or stale notebooks and bad requests with guidance', async () => {
    await seed(notebookText, false);
    expect(await edit({ cell_id: 'calc', new_source: 'x' })).toMatchObject({
      ok: false,
      code: 'file_not_read',
    });
    await runTool(ReadTool, { file_path: path() }, project.context);
    expect(await edit({ edit_mode: 'insert', new_source: 'x' })).toMatchObject({
      ok: false,
      code: 'validation_failed',
    });
    const missing = await edit({ cell_id: 'nope', new_source: 'x' });
    expect(!missing.ok && missing.message).toContain('intro, calc, last');
    await writeFile(path(), notebookText.replace('x = 1', 'x = 9'));
    const later = new Date(Date.now() + 5000);
    await utimes(path(), later, later);
    expect(await edit({ cell_id: 'calc', new_source: 'x' })).toMatchObject({ ok: false, code: 'file_stale' });
    expect(
      await runTool(
        NotebookEditTool,
        { notebook_path: join(project.root, 'a.py'), cell_id: 'x', new_source: '' },
        project.context,
      ),
    ).toMatchObject({ ok: false });
  });

  it('handles compact and CRLF notebooks', () => {
    const compact =
      '{"cells":[{"cell_type":"code","source":"a","metadata":{},"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":2}';
    const inserted = spliceNotebook(compact, {
      kind: 'insert',
      afterIndex: 0,
      cell: { cell_type: 'markdown', metadata: {}, source: 'b' },
    });
    expect(inserted).toBe(
      compact.replace('null}]', 'null},{"cell_type":"markdown","metadata":{},"source":"b"}]'),
    );
    const crlf = notebookText.replaceAll('\n', '\r\n');
    const replaced = spliceNotebook(crlf, {
      kind: 'replace',
      index: 2,
      cell: { cell_type: 'code', metadata: {}, source: ['y'], outputs: [] },
    });
    expect(replaced.includes('\n') && !/[^\r]\n/.test(replaced)).toBe(true);
  });

  it('refuses a notebook with two "cells" keys instead of editing the one Jupyter ignores', async () => {
    const cell = (id: string, source: string) =>
      `{"cell_type":"markdown","id":"${id}","metadata":{},"source":"${source}"}`;
    // JSON.parse (and Jupyter) keep the second array; both have a cell "b".
    const text = `{"cells":[${cell('a', 'decoy a')},${cell('b', 'decoy b')}],"metadata":{},"nbformat":4,"nbformat_minor":5,"cells":[${cell('a', 'real a')},${cell('b', 'real b')}]}`;
    await seed(text);
    const outcome = await edit({ cell_id: 'b', new_source: 'changed' });
    expect(outcome).toMatchObject({ ok: false, stage: 'validate', code: 'validation_failed' });
    expect(outcome.ok === false && outcome.message).toContain('"cells" key twice');
    expect(await readFile(path(), 'utf8')).toBe(text);
  });
});
