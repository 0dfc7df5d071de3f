import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EditOutput } from '../shared/edit-plan.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { MultiEditTool } from '../multi-edit/multi-edit.ts';
import { ReadTool } from '../read/read.ts';
import { WriteTool } from '../write/write.ts';
import { EditTool } from './edit.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

const file = (name: string) => join(project.root, name);
async function seedAndRead(name: string, content: Buffer): Promise<string> {
  await writeFile(file(name), content);
  const read = await runTool(ReadTool, { file_path: file(name) }, project.context);
  if (!read.ok) throw new Error(read.message);
  return read.text;
}

describe('Edit keeps every byte it did not change', () => {
  it('keeps a stray carriage return before a CRLF line ending', async () => {
    await seedAndRead('cr.txt', Buffer.from('one\r\r\ntwo\r\nthree\r\n'));
    const outcome = await runTool<EditOutput>(
      EditTool,
      { file_path: file('cr.txt'), old_string: 'three', new_string: 'THREE' },
      project.context,
    );
    expect(outcome.ok).toBe(true);
    expect((await readFile(file('cr.txt'))).toString('latin1')).toBe('one\r\r\ntwo\r\nTHREE\r\n');
  });

  it('keeps lone carriage returns in a CRLF file through MultiEdit', async () => {
    await seedAndRead('cr2.txt', Buffer.from('progress 10%\r20%\r\ndone\r\n'));
    const outcome = await runTool<EditOutput>(
      MultiEditTool,
      { file_path: file('cr2.txt'), edits: [{ old_string: 'done', new_string: 'finished' }] },
      project.context,
    );
    expect(outcome.ok).toBe(true);
    expect((await readFile(file('cr2.txt'))).toString('latin1')).toBe('progress 10%\r20%\r\nfinished\r\n');
  });

  it('reads and edits a UTF-16LE file with a BOM, byte for byte', async () => {
    const bom = Buffer.from([0xff, 0xfe]);
    const text = await seedAndRead(
      'u16.txt',
      Buffer.concat([bom, Buffer.from('héllo wörld\r\nsecond line\r\n', 'utf16le')]),
    );
    expect(text).toContain('héllo wörld');
    const outcome = await runTool<EditOutput>(
      EditTool,
      { file_path: file('u16.txt'), old_string: 'second', new_string: 'zweite' },
      project.context,
    );
    expect(outcome.ok).toBe(true);
    expect(await readFile(file('u16.txt'))).toEqual(
      Buffer.concat([bom, Buffer.from('héllo wörld\r\nzweite line\r\n', 'utf16le')]),
    );
  });

  it('leaves a read-only file alone, though its directory is writable', async () => {
    await seedAndRead('locked.txt', Buffer.from('keep me\n'));
    await chmod(file('locked.txt'), 0o444);
    const outcome = await runTool<EditOutput>(
      EditTool,
      { file_path: file('locked.txt'), old_string: 'keep', new_string: 'lose' },
      project.context,
    );
    expect(outcome).toMatchObject({ ok: false, stage: 'validate' });
    expect(outcome.ok === false && outcome.message).toContain('read-only (mode 0444)');
    const written = await runTool(
      WriteTool,
      { file_path: file('locked.txt'), content: 'gone\n' },
      project.context,
    );
    expect(written.ok).toBe(false);
    expect(await readFile(file('locked.txt'), 'utf8')).toBe('keep me\n');
    expect((await stat(file('locked.txt'))).mode & 0o777).toBe(0o444);
  });

  it('reads a window of a UTF-16LE file larger than the whole-file threshold as text', async () => {
    const body = Array.from({ length: 20_000 }, (_, index) => `line ${index + 1} héllo`).join('\n');
    await writeFile(
      file('big16.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]),
    );
    const read = await runTool(
      ReadTool,
      { file_path: file('big16.txt'), offset: 10, limit: 2 },
      project.context,
    );
    expect(read.ok && read.text).toContain('    10\tline 10 héllo\n    11\tline 11 héllo');
    expect(read.ok && read.text).not.toContain('\u0000');
  });
});
