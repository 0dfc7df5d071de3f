import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import { makeTempProject, runTool, type TempProject } from '../shared/test-support.ts';
import { type ReadOutput, ReadTool } from './read.ts';
import { alternateScreenshotPath } from './resolve-file.ts';

let project: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
});

const read = (input: Record<string, unknown>) => runTool<ReadOutput>(ReadTool, input, project.context);

/** A one-page-per-text PDF built by hand, with a correct xref table. */
function makePdf(pageTexts: string[]): Buffer {
  const objects: string[] = [];
  const pageIds = pageTexts.map((_, index) => 4 + index * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageTexts.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pageTexts.forEach((text, index) => {
    const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
    objects[4 + index * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`;
    objects[5 + index * 2] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = body.length;
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) body += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

describe('Read contract', () => {
  it('exposes the reference parameters and flags', async () => {
    const schema = toolInputJsonSchema(ReadTool);
    expect(Object.keys(schema['properties'] as object)).toEqual(['file_path', 'offset', 'limit', 'pages']);
    expect(schema['required']).toEqual(['file_path']);
    expect(ReadTool.isReadOnly({ file_path: 'x' })).toBe(true);
    expect(ReadTool.isConcurrencySafe({ file_path: 'x' })).toBe(true);
    expect(ReadTool.maxResultSizeChars).toBe(Number.POSITIVE_INFINITY);
    expect(ReadTool.shouldDefer).toBe(false);
    expect((await ReadTool.prompt({ tools: [], isNonInteractive: true })).length).toBeGreaterThan(200);
    expect(ReadTool.permissionTarget({ file_path: 'a.txt' }, project.context)).toEqual({
      kind: 'path',
      path: join(project.root, 'a.txt'),
      access: 'read',
    });
    const observable: Record<string, unknown> = { file_path: '~/x.txt' };
    ReadTool.backfillObservableInput(observable, project.context);
    expect(observable['file_path']).toBe(join(project.root, 'x.txt'));
    expect(ReadTool.inputSchema.safeParse({ file_path: 'a', offset: -1 }).success).toBe(false);
    expect(ReadTool.inputSchema.safeParse({ file_path: 'a', bogus: 1 }).success).toBe(false);
  });
});

describe('Read text', () => {
  it('numbers lines like cat -n and records a full view', async () => {
    await writeFile(join(project.root, 'a.txt'), 'alpha\nbeta\n');
    const outcome = await read({ file_path: 'a.txt' });
    expect(outcome.ok && outcome.text).toBe('     1\talpha\n     2\tbeta');
    const record = project.context.run.readFileState.get(join(project.root, 'a.txt'));
    expect(record?.content).toBe('alpha\nbeta\n');
    expect(record?.offset).toBeUndefined();
  });

  it('reads 2000 lines by default and honours offset and limit', async () => {
    const lines = Array.from({ length: 2500 }, (_, index) => `line ${index + 1}`);
    await writeFile(join(project.root, 'long.txt'), `${lines.join('\n')}\n`);
    const whole = await read({ file_path: 'long.txt' });
    expect(whole.ok && whole.data.type === 'text' && whole.data.file.numLines).toBe(2000);
    expect(whole.ok && whole.text).toContain('Showing lines 1–2000 of 2,500. Use offset 2001');
    const window = await read({ file_path: 'long.txt', offset: 2400, limit: 3 });
    expect(window.ok && window.text.split('\n').slice(0, 3)).toEqual([
      '  2400\tline 2400',
      '  2401\tline 2401',
      '  2402\tline 2402',
    ]);
    expect(project.context.run.readFileState.get(join(project.root, 'long.txt'))).toMatchObject({
      offset: 2400,
      limit: 3,
    });
  });

  it('cuts long lines and strips CR from CRLF files', async () => {
    await writeFile(join(project.root, 'wide.txt'), `${'x'.repeat(5000)}\r\nshort\r\n`);
    const outcome = await read({ file_path: 'wide.txt' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const [first, second] = outcome.text.split('\n');
    expect(first?.length).toBeLessThan(2100);
    expect(first).toContain('[line truncated]');
    expect(second).toBe('     2\tshort');
    expect(project.context.run.readFileState.get(join(project.root, 'wide.txt'))?.content).toBe(
      `${'x'.repeat(5000)}\nshort\n`,
    );
  });

  it('notes empty files and offsets past the end', async () => {
    await writeFile(join(project.root, 'empty.txt'), '');
    const empty = await read({ file_path: 'empty.txt' });
    expect(empty.ok && empty.text).toContain('exists but is empty');
    await writeFile(join(project.root, 'three.txt'), 'a\nb\nc');
    const past = await read({ file_path: 'three.txt', offset: 10 });
    expect(past.ok && past.text).toContain('only 3 lines');
  });

  it('returns a partial first page for a file over the token budget, and errors for explicit windows', async () => {
    const line = 'y'.repeat(300);
    await writeFile(
      join(project.root, 'big.txt'),
      `${Array.from({ length: 3000 }, () => line).join('\n')}\n`,
    );
    const page = await read({ file_path: 'big.txt' });
    expect(page.ok).toBe(true);
    if (!page.ok || page.data.type !== 'text') return;
    expect(page.text).toContain('PARTIAL view');
    expect(page.text.length).toBeLessThan(110_000);
    expect(project.context.run.readFileState.get(join(project.root, 'big.txt'))?.isPartialView).toBe(true);
    const explicit = await read({ file_path: 'big.txt', offset: 1, limit: 2000 });
    expect(explicit).toMatchObject({ ok: false, code: 'file_too_large' });
    expect(!explicit.ok && explicit.message).toMatch(/smaller limit|Grep/);
  });

  it('streams a window deep inside a large file with correct line numbers', async () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `row ${index + 1} ${'z'.repeat(index % 50)}`);
    await writeFile(join(project.root, 'huge.log'), `${lines.join('\n')}\n`);
    const outcome = await read({ file_path: 'huge.log', offset: 199_990, limit: 20 });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok || outcome.data.type !== 'text') return;
    expect(outcome.data.file.numLines).toBe(11);
    expect(outcome.data.file.totalLines).toBe(200_000);
    expect(outcome.text.split('\n')[0]).toBe(`199990\t${lines[199_989]}`);
    // The second read seeks from a remembered checkpoint and must agree.
    const again = await read({ file_path: 'huge.log', offset: 150_001, limit: 1 });
    expect(again.ok && again.text.split('\n')[0]).toBe(`150001\t${lines[150_000]}`);
  });
});

describe('Read refusals', () => {
  it('suggests similar names for a missing file', async () => {
    await writeFile(join(project.root, 'config.json'), '{}');
    const outcome = await read({ file_path: 'config.jsn' });
    expect(outcome).toMatchObject({ ok: false, code: 'file_not_found' });
    expect(!outcome.ok && outcome.message).toContain(join(project.root, 'config.json'));
  });

  it('rejects directories with a hint', async () => {
    await mkdir(join(project.root, 'src'));
    const outcome = await read({ file_path: 'src' });
    expect(!outcome.ok && outcome.message).toMatch(/directory.*ls.*Glob/s);
  });

  it('blocks device and process paths by name, by link target and by stat', async () => {
    for (const path of [
      '/dev/zero',
      '/dev/stdin',
      '/dev/fd/0',
      '/proc/self/environ',
      '/proc/1/fd/0',
      '/dev/tty',
    ]) {
      expect(await read({ file_path: path })).toMatchObject({ ok: false, code: 'path_blocked' });
    }
    execFileSync('ln', ['-s', '/proc/self/environ', join(project.root, 'env-link')]);
    expect(await read({ file_path: 'env-link' })).toMatchObject({ ok: false, code: 'path_blocked' });
    execFileSync('mkfifo', [join(project.root, 'pipe')]);
    const fifo = await read({ file_path: 'pipe' });
    expect(fifo).toMatchObject({ ok: false, code: 'path_blocked' });
    expect(!fifo.ok && fifo.message).toContain('named pipe');
  });

  it('refuses binary files with what to do instead', async () => {
    await writeFile(join(project.root, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 10, 0]));
    const outcome = await read({ file_path: 'blob.bin' });
    expect(!outcome.ok && outcome.message).toMatch(/binary.*xxd/s);
    await writeFile(join(project.root, 'archive.zip'), Buffer.from('504b0304140000000800', 'hex'));
    expect(!(await read({ file_path: 'archive.zip' })).ok).toBe(true);
  });

  it('reports missing permission', async () => {
    if (process.getuid?.() === 0) return; // root reads everything
    await writeFile(join(project.root, 'secret.txt'), 'x');
    await chmod(join(project.root, 'secret.txt'), 0);
    expect(!(await read({ file_path: 'secret.txt' })).ok).toBe(true);
  });
});

describe('Read special formats', () => {
  it('returns small images as they are and downscales large ones', async () => {
    const small = await sharp({ create: { width: 20, height: 10, channels: 3, background: 'red' } })
      .png()
      .toBuffer();
    await writeFile(join(project.root, 'small.dat'), small); // type comes from magic bytes, not the name
    const outcome = await read({ file_path: 'small.dat' });
    expect(outcome.ok && outcome.data.type === 'image' && outcome.data.file.mediaType).toBe('image/png');
    expect(outcome.ok && Array.isArray(outcome.block.content) && outcome.block.content[0]?.type).toBe(
      'image',
    );

    const noise = Buffer.alloc(3000 * 1000 * 3);
    for (let index = 0; index < noise.length; index++) noise[index] = (index * 2654435761) >>> 24;
    const large = await sharp(noise, { raw: { width: 3000, height: 1000, channels: 3 } })
      .png()
      .toBuffer();
    await writeFile(join(project.root, 'large.png'), large);
    const big = await read({ file_path: 'large.png' });
    expect(big.ok).toBe(true);
    if (!big.ok || big.data.type !== 'image') return;
    expect(big.data.file.resized).toBe(true);
    expect(big.data.file.width).toBeLessThanOrEqual(2000);
    expect(Buffer.from(big.data.file.base64, 'base64').length).toBeLessThanOrEqual(500 * 1024);
  });

  it('extracts PDF text per page and requires pages for long PDFs', async () => {
    await writeFile(join(project.root, 'short.pdf'), makePdf(['Hello first page', 'Second page here']));
    const outcome = await read({ file_path: 'short.pdf' });
    expect(outcome.ok && outcome.text).toContain('Hello first page');
    expect(outcome.ok && outcome.text).toContain('<page number="2">');
    await writeFile(
      join(project.root, 'long.pdf'),
      makePdf(Array.from({ length: 12 }, (_, index) => `Page ${index + 1}`)),
    );
    const refused = await read({ file_path: 'long.pdf' });
    expect(!refused.ok && refused.message).toContain('pages');
    const some = await read({ file_path: 'long.pdf', pages: '11-12' });
    expect(some.ok && some.data.type === 'pdf' && some.data.file.pages.map((page) => page.text)).toEqual([
      'Page 11',
      'Page 12',
    ]);
    expect(await read({ file_path: 'long.pdf', pages: '1-30' })).toMatchObject({
      ok: false,
      stage: 'validate',
    });
  });

  it('shows notebook cells with outputs and images', async () => {
    const pixel = (
      await sharp({ create: { width: 2, height: 2, channels: 3, background: 'blue' } })
        .png()
        .toBuffer()
    ).toString('base64');
    const notebook = {
      cells: [
        { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'text'] },
        {
          cell_type: 'code',
          id: 'calc',
          metadata: {},
          execution_count: 3,
          source: 'print(1+1)',
          outputs: [
            { output_type: 'stream', name: 'stdout', text: ['2\n'] },
            {
              output_type: 'display_data',
              data: { 'image/png': pixel, 'text/plain': '<Figure>' },
              metadata: {},
            },
          ],
        },
      ],
      metadata: { language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    await writeFile(join(project.root, 'nb.ipynb'), JSON.stringify(notebook, null, 1));
    const outcome = await read({ file_path: 'nb.ipynb' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.text).toContain('<cell id="calc" type="code" execution_count="3">');
    expect(outcome.text).toContain('```python\nprint(1+1)\n```');
    expect(outcome.text).toContain('<output>\n2\n');
    expect(
      Array.isArray(outcome.block.content) && outcome.block.content.some((block) => block.type === 'image'),
    ).toBe(true);
  });

  it('finds macOS screenshots whatever space precedes AM/PM', async () => {
    const real = 'Screenshot 2024-01-01 at 10.03.12\u202fPM.png';
    await writeFile(
      join(project.root, real),
      await sharp({ create: { width: 4, height: 4, channels: 3, background: 'red' } })
        .png()
        .toBuffer(),
    );
    const outcome = await read({ file_path: 'Screenshot 2024-01-01 at 10.03.12 PM.png' });
    expect(outcome.ok && outcome.data.file.filePath).toBe(join(project.root, real));
    expect(alternateScreenshotPath('/x/Shot 1.2.3\u202fAM.png')).toBe('/x/Shot 1.2.3 AM.png');
    expect(alternateScreenshotPath('/x/plain.png')).toBeUndefined();
  });
});
