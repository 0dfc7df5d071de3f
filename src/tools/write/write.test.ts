import { chmod, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { ReadTool } from '../read/read.ts';
import { type WriteOutput, WriteTool } from './write.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

const file = (name: string) => join(project.root, name);
const write = (name: string, content: string) =>
  runTool<WriteOutput>(WriteTool, { file_path: file(name), content }, project.context);

describe('Write', () => {
  it('has the reference schema and writer flags', () => {
    expect(Object.keys(toolInputJsonSchema(WriteTool)['properties'] as object)).toEqual([
      'file_path',
      'content',
    ]);
    expect(WriteTool.isReadOnly({} as never)).toBe(false);
    expect(WriteTool.isConcurrencySafe({} as never)).toBe(false);
  });

  it('creates files and missing parent directories', async () => {
    const outcome = await write('deep/er/new.txt', 'fresh\n');
    expect(outcome.ok && outcome.data.type).toBe('create');
    expect(outcome.ok && outcome.text).toContain('File created successfully');
    expect(await readFile(file('deep/er/new.txt'), 'utf8')).toBe('fresh\n');
  });

  it('replies with line counts that ignore the final newline and a numbered snippet of the change', async () => {
    const created = await write('c.txt', 'a\nb\n');
    expect(created.ok && created.data.lines).toBe(2);
    expect(created.ok && created.text).toMatch(/^File created successfully at: .*c\.txt \(2 lines\)\./);
    expect(created.ok && created.text).toMatch(/1\ta\n\s*2\tb$/);
    expect((await write('one.txt', 'no newline')).ok && (await write('z.txt', 'x')).ok).toBe(true);
    expect((await write('empty.txt', '')).ok).toBe(true);

    const body = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`);
    await writeFile(file('u.txt'), `${body.join('\n')}\n`);
    expect((await runTool(ReadTool, { file_path: file('u.txt') }, project.context)).ok).toBe(true);
    body[29] = 'CHANGED';
    const updated = await write('u.txt', `${body.join('\n')}\n`);
    expect(updated.ok && updated.data.lines).toBe(40);
    const text = updated.ok ? updated.text : '';
    expect(text).toContain('has been updated (40 lines written).');
    expect(text).toMatch(/30\tCHANGED/); // the snippet is around the change, not the top of the file
    expect(text).not.toMatch(/\b1\tline 1\b/);
    expect(text.split('\n').length).toBeLessThan(20);
  });

  it('requires a read before replacing an existing file', async () => {
    await writeFile(file('e.txt'), 'old\n');
    const refused = await write('e.txt', 'new\n');
    expect(refused).toMatchObject({ ok: false, code: 'file_not_read' });
    expect(!refused.ok && refused.message).toContain('Read');
    expect(await readFile(file('e.txt'), 'utf8')).toBe('old\n');
  });

  it('refuses to replace a file changed since it was read', async () => {
    await writeFile(file('e.txt'), 'old\n');
    await runTool(ReadTool, { file_path: file('e.txt') }, project.context);
    await writeFile(file('e.txt'), 'someone else\n');
    const later = new Date(Date.now() + 5000);
    await utimes(file('e.txt'), later, later);
    expect(await write('e.txt', 'mine\n')).toMatchObject({ ok: false, code: 'file_stale' });
    expect(await readFile(file('e.txt'), 'utf8')).toBe('someone else\n');
  });

  it('replaces a read file atomically, keeping mode and CRLF, with a diff', async () => {
    await writeFile(file('u.txt'), 'a\r\nb\r\n');
    await chmod(file('u.txt'), 0o600);
    await runTool(ReadTool, { file_path: file('u.txt') }, project.context);
    const outcome = await write('u.txt', 'a\nc\n');
    expect(outcome.ok && outcome.data.type).toBe('update');
    expect(outcome.ok && outcome.data.structuredPatch[0]?.lines).toEqual([' a', '-b', '+c']);
    expect(await readFile(file('u.txt'), 'utf8')).toBe('a\r\nc\r\n');
    expect((await stat(file('u.txt'))).mode & 0o777).toBe(0o600);
    expect(await readdir(project.root)).toEqual(['u.txt']);
  });

  it('refuses device paths and directories', async () => {
    expect(await runTool(WriteTool, { file_path: '/dev/zero', content: 'x' }, project.context)).toMatchObject(
      { code: 'path_blocked' },
    );
    expect(
      await runTool(WriteTool, { file_path: project.root, content: 'x' }, project.context),
    ).toMatchObject({ code: 'path_blocked' });
  });
});
