import { open, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import type { EditOutput } from '../shared/edit-plan.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { ReadTool } from '../read/read.ts';
import { EditTool } from './edit.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

const file = (name: string) => join(project.root, name);
const edit = (input: Record<string, unknown>) => runTool<EditOutput>(EditTool, input, project.context);
async function seed(name: string, content: string | Buffer, readFirst = true): Promise<void> {
  await writeFile(file(name), content);
  if (readFirst) expect((await runTool(ReadTool, { file_path: file(name) }, project.context)).ok).toBe(true);
}

describe('Edit contract', () => {
  it('has the reference schema and writer flags', async () => {
    const schema = toolInputJsonSchema(EditTool);
    expect(Object.keys(schema['properties'] as object)).toEqual([
      'file_path',
      'old_string',
      'new_string',
      'replace_all',
    ]);
    expect(schema['required']).toEqual(['file_path', 'old_string', 'new_string']);
    expect(EditTool.isReadOnly({} as never)).toBe(false);
    expect(EditTool.isConcurrencySafe({} as never)).toBe(false);
    expect(EditTool.maxResultSizeChars).toBe(100_000);
    expect(
      EditTool.permissionTarget({ file_path: 'a', old_string: '', new_string: '' }, project.context),
    ).toMatchObject({
      access: 'write',
    });
    expect((await EditTool.prompt({ tools: [], isNonInteractive: true })).length).toBeGreaterThan(100);
  });
});

describe('Edit', () => {
  it('replaces a unique string and reports a snippet and hunks', async () => {
    await seed('a.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const outcome = await edit({
      file_path: file('a.ts'),
      old_string: 'const b = 2;',
      new_string: 'const b = 20;',
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(await readFile(file('a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
    expect(outcome.text).toContain('     2\tconst b = 20;');
    expect(outcome.data.structuredPatch).toEqual([
      {
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 3,
        lines: [' const a = 1;', '-const b = 2;', '+const b = 20;', ' const c = 3;'],
      },
    ]);
    // The write refreshed the read state, so a second edit needs no new read.
    expect(
      (await edit({ file_path: file('a.ts'), old_string: 'const c = 3;', new_string: 'const c = 30;' })).ok,
    ).toBe(true);
  });

  it('numbers every refusal as the reference does', async () => {
    await seed('x.txt', 'one two two\n');
    expect(await edit({ file_path: file('x.txt'), old_string: 'one', new_string: 'one' })).toMatchObject({
      code: 1,
    });
    expect(await edit({ file_path: file('x.txt'), old_string: '', new_string: 'new' })).toMatchObject({
      code: 3,
    });
    const missing = await edit({ file_path: file('x.tx'), old_string: 'a', new_string: 'b' });
    expect(missing).toMatchObject({ code: 4 });
    expect(!missing.ok && missing.message).toContain(file('x.txt'));
    expect(await edit({ file_path: file('n.ipynb'), old_string: 'a', new_string: 'b' })).toMatchObject({
      code: 5,
    });
    await seed('unread.txt', 'abc', false);
    expect(await edit({ file_path: file('unread.txt'), old_string: 'a', new_string: 'b' })).toMatchObject({
      code: 6,
    });
    expect(await edit({ file_path: file('x.txt'), old_string: 'three', new_string: '3' })).toMatchObject({
      code: 8,
    });
    const ambiguous = await edit({ file_path: file('x.txt'), old_string: 'two', new_string: '2' });
    expect(ambiguous).toMatchObject({ code: 9 });
    expect(!ambiguous.ok && ambiguous.message).toMatch(/Found 2 matches.*replace_all/s);
    expect(await readFile(file('x.txt'), 'utf8')).toBe('one two two\n');
  });

  it('refuses files over 1 GiB (code 10) without reading them', async () => {
    const handle = await open(file('huge.bin'), 'w');
    await handle.truncate(1024 ** 3 + 1);
    await handle.close();
    expect(await edit({ file_path: file('huge.bin'), old_string: 'a', new_string: 'b' })).toMatchObject({
      code: 10,
    });
  });

  it('detects staleness by mtime, with a content comparison for touched files', async () => {
    await seed('s.txt', 'hello\n');
    const later = new Date(Date.now() + 10_000);
    await utimes(file('s.txt'), later, later); // touched, same content
    expect((await edit({ file_path: file('s.txt'), old_string: 'hello', new_string: 'hi' })).ok).toBe(true);
    await writeFile(file('s.txt'), 'changed elsewhere\n');
    const evenLater = new Date(Date.now() + 20_000);
    await utimes(file('s.txt'), evenLater, evenLater);
    expect(await edit({ file_path: file('s.txt'), old_string: 'changed', new_string: 'x' })).toMatchObject({
      code: 7,
    });
  });

  it('replaces all occurrences with replace_all and removes whole deleted lines', async () => {
    await seed('r.txt', 'foo\nbar foo\nkeep\ndrop me\nend\n');
    const outcome = await edit({
      file_path: file('r.txt'),
      old_string: 'foo',
      new_string: 'baz',
      replace_all: true,
    });
    expect(outcome.ok && outcome.data.replacements).toBe(2);
    await edit({ file_path: file('r.txt'), old_string: 'drop me', new_string: '' });
    expect(await readFile(file('r.txt'), 'utf8')).toBe('baz\nbar baz\nkeep\nend\n');
  });

  it('matches curly quotes from straight ones and keeps the file style', async () => {
    await seed('q.md', 'She said “hello” and it’s fine.\n');
    const outcome = await edit({
      file_path: file('q.md'),
      old_string: 'said "hello" and it\'s',
      new_string: 'said "goodbye" and it\'s',
    });
    expect(outcome.ok).toBe(true);
    expect(await readFile(file('q.md'), 'utf8')).toBe('She said “goodbye” and it’s fine.\n');
  });

  it('preserves CRLF line endings, BOM and mode', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    await seed('w.txt', Buffer.concat([bom, Buffer.from('first\r\nsecond\r\nthird\r\n')]));
    const { chmod } = await import('node:fs/promises');
    await chmod(file('w.txt'), 0o640);
    const outcome = await edit({
      file_path: file('w.txt'),
      old_string: 'first\nsecond',
      new_string: 'first\nmiddle\nsecond',
    });
    expect(outcome.ok).toBe(true);
    const bytes = await readFile(file('w.txt'));
    expect(bytes.subarray(0, 3)).toEqual(bom);
    expect(bytes.subarray(3).toString()).toBe('first\r\nmiddle\r\nsecond\r\nthird\r\n');
    expect((await stat(file('w.txt'))).mode & 0o777).toBe(0o640);
  });

  it('matches across mixed line endings and writes back each line its own ending', async () => {
    await seed('m.txt', 'one\r\ntwo\nthree\r\nfour\n');
    const outcome = await edit({
      file_path: file('m.txt'),
      old_string: 'one\ntwo\nthree',
      new_string: 'ONE\nTWO\nTHREE\nEXTRA',
    });
    expect(outcome.ok).toBe(true);
    // The k-th replaced break keeps its ending; the extra line takes the last replaced one.
    expect(await readFile(file('m.txt'), 'utf8')).toBe('ONE\r\nTWO\nTHREE\nEXTRA\r\nfour\n');
    // A model copying the \r (or a \n where the file has \r\n) also matches.
    await seed('n.txt', 'a\r\nb\nc\r\n');
    expect(
      (await edit({ file_path: file('n.txt'), old_string: 'a\r\nb\r\nc', new_string: 'a\nB\nc' })).ok,
    ).toBe(true);
    expect(await readFile(file('n.txt'), 'utf8')).toBe('a\r\nB\nc\r\n');
  });

  it('counts matches across mixed line endings for ambiguity and replace_all', async () => {
    await seed('r.txt', 'x\r\ny\nx\ny\n');
    const ambiguous = await edit({ file_path: file('r.txt'), old_string: 'x\ny', new_string: 'z' });
    expect(ambiguous).toMatchObject({ ok: false });
    expect(!ambiguous.ok && ambiguous.message).toMatch(/Found 2 matches/);
    expect(
      (await edit({ file_path: file('r.txt'), old_string: 'x\ny', new_string: 'p\nq', replace_all: true }))
        .ok,
    ).toBe(true);
    expect(await readFile(file('r.txt'), 'utf8')).toBe('p\r\nq\np\nq\n');
  });

  it('edits Latin-1 files without corrupting other bytes', async () => {
    await seed('l.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x61, 0x62, 0x63, 0x0a])); // "café\nabc\n" in Latin-1
    expect((await edit({ file_path: file('l.txt'), old_string: 'abc', new_string: 'xyz' })).ok).toBe(true);
    expect(await readFile(file('l.txt'))).toEqual(
      Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x79, 0x7a, 0x0a]),
    );
  });

  it('creates a new file from an empty old_string, with parents', async () => {
    const outcome = await edit({ file_path: file('new/dir/c.txt'), old_string: '', new_string: 'created\n' });
    expect(outcome.ok && outcome.text).toContain('File created successfully');
    expect(await readFile(file('new/dir/c.txt'), 'utf8')).toBe('created\n');
  });

  it('refuses device paths and works outside the working directories', async () => {
    expect(await edit({ file_path: '/dev/zero', old_string: 'a', new_string: 'b' })).toMatchObject({
      ok: false,
      code: 'path_blocked',
    });
    const outside = await makeTempProject();
    try {
      await writeFile(join(outside.root, 'o.txt'), 'outside\n');
      await runTool(ReadTool, { file_path: join(outside.root, 'o.txt') }, project.context);
      expect(
        (await edit({ file_path: join(outside.root, 'o.txt'), old_string: 'outside', new_string: 'in' })).ok,
      ).toBe(true);
    } finally {
      await outside.cleanup();
    }
  });
});
