import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../core/index.ts';
import { EditTool } from '../edit/edit.ts';
import { NotebookEditTool } from '../notebook-edit/notebook-edit.ts';
import { ReadTool } from '../read/read.ts';
import { WriteTool } from '../write/write.ts';
import { makeTempProject, runTool, type TempProject } from './test-support.ts';

let project: TempProject;
let outside: string;
beforeEach(async () => {
  project = await makeTempProject();
  outside = await realpath(await mkdtemp(join(tmpdir(), 'efferent-outside-')));
});
afterEach(async () => {
  await project.cleanup();
  await rm(outside, { recursive: true, force: true });
});

/** validateInput, then `between` (the moment a permission prompt waits), then call. */
async function validateThenCall(tool: AnyTool, input: Record<string, unknown>, between: () => Promise<void>) {
  const parsed = tool.inputSchema.parse(input) as Record<string, unknown>;
  expect(await tool.validateInput(parsed, project.context)).toEqual({ ok: true });
  await between();
  return tool
    .call(
      parsed,
      project.context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      'toolu_test',
    )
    .then(
      () => 'written',
      (error: Error & { code?: string }) => error.code ?? error.message,
    );
}

describe('writes never leave the working directories through a symlink', () => {
  it('Write refuses a new file under a linked directory that points outside', async () => {
    await symlink(outside, join(project.root, 'linked'));
    const outcome = await runTool(
      WriteTool,
      { file_path: join(project.root, 'linked/new.txt'), content: 'x' },
      project.context,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    expect(outcome.ok === false && outcome.message).toContain(`pass ${join(outside, 'new.txt')} as the path`);
    expect(await readdir(outside)).toEqual([]);
  });

  it('Write refuses when a directory is replaced by a link after validation', async () => {
    await mkdir(join(project.root, 'src'));
    const verdict = await validateThenCall(
      WriteTool,
      { file_path: join(project.root, 'src/new.txt'), content: 'payload' },
      async () => {
        await rm(join(project.root, 'src'), { recursive: true });
        await symlink(outside, join(project.root, 'src'));
      },
    );
    expect(verdict).toBe('path_outside_workspace');
    expect(await readdir(outside)).toEqual([]);
  });

  it('Edit refuses when the file is swapped for a link to an identical file outside', async () => {
    const inside = join(project.root, 'a.txt');
    await writeFile(inside, 'key = old\n');
    await writeFile(join(outside, 'victim.txt'), 'key = old\n');
    expect((await runTool(ReadTool, { file_path: inside }, project.context)).ok).toBe(true);
    const verdict = await validateThenCall(
      EditTool,
      { file_path: inside, old_string: 'old', new_string: 'new' },
      async () => {
        await unlink(inside);
        await symlink(join(outside, 'victim.txt'), inside);
      },
    );
    expect(verdict).toBe('path_outside_workspace');
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('key = old\n');
  });

  it('NotebookEdit refuses a notebook reached through a link that points outside', async () => {
    const notebook = JSON.stringify(
      {
        cells: [{ cell_type: 'code', source: ['1'], metadata: {}, outputs: [], execution_count: null }],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    );
    await writeFile(join(outside, 'n.ipynb'), notebook);
    await symlink(join(outside, 'n.ipynb'), join(project.root, 'n.ipynb'));
    await runTool(ReadTool, { file_path: join(project.root, 'n.ipynb') }, project.context);
    const outcome = await runTool(
      NotebookEditTool,
      { notebook_path: join(project.root, 'n.ipynb'), cell_id: 'cell-0', new_source: '2' },
      project.context,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    expect(await readFile(join(outside, 'n.ipynb'), 'utf8')).toBe(notebook);
  });

  it('still writes through links that stay inside, and to outside paths named as such', async () => {
    await mkdir(join(project.root, 'real'));
    await symlink(join(project.root, 'real'), join(project.root, 'alias'));
    expect(
      (
        await runTool(
          WriteTool,
          { file_path: join(project.root, 'alias/f.txt'), content: 'in' },
          project.context,
        )
      ).ok,
    ).toBe(true);
    expect(await readFile(join(project.root, 'real/f.txt'), 'utf8')).toBe('in');
    expect(
      (await runTool(WriteTool, { file_path: join(outside, 'named.txt'), content: 'out' }, project.context))
        .ok,
    ).toBe(true);
  });
});
