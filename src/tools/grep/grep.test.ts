import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../../core/index.ts';
import { runRipgrep } from '../shared/ripgrep.ts';
import { makeTempProject, ripgrepEnv, runTool, type TempProject } from '../shared/test-support.ts';
import { type GrepOutput, GrepTool } from './grep.ts';
import { ripgrepArgs, splitGlobs } from './grep-spec.ts';

let project: TempProject;
let scratch: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
  scratch = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
  await scratch.cleanup();
});

async function put(path: string, content: string, ageSeconds = 0): Promise<void> {
  const full = join(project.root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
  if (ageSeconds) {
    const time = new Date(Date.now() - ageSeconds * 1000);
    await utimes(full, time, time);
  }
}

describe('Grep contract', () => {
  it('has every reference parameter and read-only flags', () => {
    expect(Object.keys(toolInputJsonSchema(GrepTool)['properties'] as object)).toEqual([
      'pattern',
      'path',
      'glob',
      'type',
      'output_mode',
      '-i',
      '-o',
      '-n',
      '-B',
      '-A',
      '-C',
      'context',
      'head_limit',
      'offset',
      'multiline',
    ]);
    expect(GrepTool.isReadOnly({ pattern: 'x' })).toBe(true);
    expect(GrepTool.isConcurrencySafe({ pattern: 'x' })).toBe(true);
    expect(GrepTool.maxResultSizeChars).toBe(20_000);
  });

  it('splits glob lists outside braces only', () => {
    expect(splitGlobs('*.ts, *.tsx')).toEqual(['*.ts', '*.tsx']);
    expect(splitGlobs('**/*.{ts,tsx} !dist/**')).toEqual(['**/*.{ts,tsx}', '!dist/**']);
  });

  it('never asks ripgrep to sort, which would make it single-threaded', () => {
    for (const mode of ['content', 'count', 'files_with_matches'] as const) {
      const args = ripgrepArgs({
        pattern: 'x',
        searchArg: undefined,
        absoluteTarget: '/tmp',
        targetIsFile: false,
        mode,
        caseInsensitive: false,
        onlyMatching: false,
        lineNumbers: true,
        before: 0,
        after: 0,
        multiline: false,
        globs: [],
        type: undefined,
        nullAfterPath: mode !== 'files_with_matches',
      });
      expect(args.filter((arg) => arg.startsWith('--sort'))).toEqual([]);
    }
  });

  it('stops reading and kills the child once the caller has enough lines', async () => {
    const lines: string[] = [];
    const started = Date.now();
    // `yes` never ends: only a kill can finish this call.
    const exit = await runRipgrep('yes', ['match'], { cwd: project.root }, (line) => {
      lines.push(line);
      return lines.length < 10;
    });
    expect(exit.stoppedEarly).toBe(true);
    expect(lines).toHaveLength(10);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe.each(['system', 'bundled', 'js'] as const)('Grep with %s ripgrep', (source) => {
  beforeEach(async () => {
    project.context.run.env = await ripgrepEnv(source, scratch.root);
  });
  const grep = (input: Record<string, unknown>) => runTool<GrepOutput>(GrepTool, input, project.context);

  it('lists matching files newest first by default', async () => {
    await put('old.ts', 'const needle = 1;\n', 300);
    await put('src/new.ts', 'needle();\n', 10);
    await put('src/none.ts', 'nothing here\n', 5);
    const outcome = await grep({ pattern: 'needle' });
    expect(outcome.ok && outcome.data.filenames).toEqual(['src/new.ts', 'old.ts']);
    expect(outcome.ok && outcome.text).toMatch(/^Found 2 file\(s\)\nsrc\/new.ts\nold.ts$/);
  });

  it('orders the file list newest first across directories, the same with every source', async () => {
    // The two directories' files interleave in time: sorting inside each directory is not enough.
    const ages: Array<[string, number]> = [
      ['d0/a.txt', 10],
      ['d1/c.txt', 20],
      ['d1/d.txt', 30],
      ['d0/b.txt', 40],
      ['top.txt', 25],
    ];
    for (const [path, age] of ages) await put(path, 'needle', age);
    const expected = [...ages].sort((a, b) => a[1] - b[1]).map(([path]) => path);
    const outcome = await grep({ pattern: 'needle' });
    expect(outcome.ok && outcome.data.filenames).toEqual(expected);
    const paged = await grep({ pattern: 'needle', head_limit: 2, offset: 2 });
    expect(paged.ok && paged.data.filenames).toEqual(expected.slice(2, 4));
  });

  it('says "No files found" when the glob or type filter leaves nothing to search', async () => {
    await put('a.ts', 'needle');
    for (const input of [{ glob: '*.zzz' }, { type: 'py' }, { glob: '*.zzz', output_mode: 'content' }]) {
      const outcome = await grep({ pattern: 'needle', ...input });
      expect(outcome.ok, JSON.stringify(input)).toBe(true);
      expect(outcome.ok && outcome.text, JSON.stringify(input)).toMatch(/^No (files|matches) found$/);
    }
  });

  it('shows content with line numbers, case folding, context and only-matching', async () => {
    await put('a.txt', 'one\nTwo needle\nthree\nfour\nfive\nsix NEEDLE\n');
    const content = await grep({ pattern: 'needle', output_mode: 'content', '-i': true, path: 'a.txt' });
    expect(content.ok && content.data.content).toBe('2:Two needle\n6:six NEEDLE');
    const noNumbers = await grep({ pattern: 'needle', output_mode: 'content', '-n': false });
    expect(noNumbers.ok && noNumbers.data.content).toBe('a.txt:Two needle');
    const around = await grep({ pattern: 'needle', output_mode: 'content', '-i': true, context: 1 });
    expect(around.ok && around.data.content).toBe(
      'a.txt-1-one\na.txt:2:Two needle\na.txt-3-three\n--\na.txt-5-five\na.txt:6:six NEEDLE',
    );
    const after = await grep({ pattern: 'Two', output_mode: 'content', '-A': 1 });
    expect(after.ok && after.data.content).toBe('a.txt:2:Two needle\na.txt-3-three');
    const only = await grep({ pattern: 'n\\w+e', output_mode: 'content', '-o': true });
    expect(only.ok && only.data.content).toBe('a.txt:2:needle');
  });

  it('orders lines and counts by path as rg --sort path does, searching in parallel, and pages without gaps', async () => {
    // Names where comparing whole strings and comparing level by level disagree (a/… before a-c).
    const names = ['a/b.txt', 'a-c.txt', 'a.d/x.txt', 'ab.txt', 'a/b/c.txt', 'z.txt'];
    for (let index = 0; index < 40; index++) names.push(`d${index % 4}/sub${index % 3}/f${index}.txt`);
    for (const name of names) await put(name, 'before\nneedle one\nafter\ngap\ngap\nneedle two\n');
    const { rgPath } = await import('@vscode/ripgrep');
    const reference = (args: string[]) =>
      new Promise<string>((resolve) => {
        const lines: string[] = [];
        void runRipgrep(rgPath, ['--sort', 'path', '--no-config', ...args], { cwd: project.root }, (line) => {
          lines.push(line);
          return true;
        }).then(() => resolve(lines.join('\n')));
      });
    const content = await grep({ pattern: 'needle', output_mode: 'content', context: 1, head_limit: 0 });
    expect(content.ok && content.data.content).toBe(await reference(['-n', '-C1', 'needle']));
    const count = await grep({ pattern: 'needle', output_mode: 'count', head_limit: 0 });
    expect(count.ok && count.data.content).toBe(await reference(['--count', 'needle']));
    const all = content.ok ? (content.data.content ?? '').split('\n') : [];
    const pages: string[] = [];
    for (let offset = 0; offset < all.length; offset += 37) {
      const page = await grep({
        pattern: 'needle',
        output_mode: 'content',
        context: 1,
        head_limit: 37,
        offset,
      });
      pages.push(...(page.ok ? (page.data.content ?? '').split('\n') : []));
    }
    expect(pages).toEqual(all);
  });

  it('matches across lines in multiline mode', async () => {
    await put('m.go', 'type A struct {\n  name string\n}\n');
    const single = await grep({ pattern: 'struct \\{.*name', output_mode: 'content' });
    expect(single.ok && single.data.numLines).toBe(0);
    const multi = await grep({ pattern: 'struct \\{.*name', output_mode: 'content', multiline: true });
    expect(multi.ok && multi.data.content).toBe('m.go:1:type A struct {\nm.go:2:  name string');
  });

  it('counts matching lines per file with a total', async () => {
    await put('a.txt', 'x\nx\ny\n');
    await put('b.txt', 'x\n');
    const outcome = await grep({ pattern: 'x', output_mode: 'count' });
    expect(outcome.ok && outcome.data.content).toBe('a.txt:2\nb.txt:1');
    expect(outcome.ok && outcome.data.numMatches).toBe(3);
    expect(outcome.ok && outcome.text).toContain('Found 3 matching lines across 2 file(s)');
  });

  it('pages with head_limit and offset, reporting appliedLimit', async () => {
    await put('many.txt', `${Array.from({ length: 600 }, (_, index) => `hit ${index + 1}`).join('\n')}\n`);
    const first = await grep({ pattern: 'hit', output_mode: 'content' });
    expect(first.ok && first.data.numLines).toBe(250);
    expect(first.ok && first.data.appliedLimit).toBe(250);
    expect(first.ok && first.text).toContain('pass offset: 250');
    const second = await grep({ pattern: 'hit', output_mode: 'content', head_limit: 10, offset: 595 });
    expect(second.ok && second.data.content?.split('\n')).toEqual([
      'many.txt:596:hit 596',
      'many.txt:597:hit 597',
      'many.txt:598:hit 598',
      'many.txt:599:hit 599',
      'many.txt:600:hit 600',
    ]);
    expect(second.ok && second.data.appliedLimit).toBeUndefined();
    expect(second.ok && second.data.appliedOffset).toBe(595);
    const all = await grep({ pattern: 'hit', output_mode: 'content', head_limit: 0 });
    expect(all.ok && all.data.numLines).toBe(600);
  });

  it('searches hidden files, skips VCS directories and gitignored files, filters by glob and type', async () => {
    await put('.hidden/conf.yml', 'token\n');
    await put('.git/HEAD', 'token\n');
    await put('.hg/store', 'token\n');
    await put('ignored/x.ts', 'token\n');
    await put('.gitignore', 'ignored/\n');
    await put('src/a.ts', 'token\n');
    await put('src/b.py', 'token\n');
    const outcome = await grep({ pattern: 'token' });
    expect(outcome.ok && [...outcome.data.filenames].sort()).toEqual([
      '.hidden/conf.yml',
      'src/a.ts',
      'src/b.py',
    ]);
    const byGlob = await grep({ pattern: 'token', glob: '*.{ts,yml}' });
    expect(byGlob.ok && [...byGlob.data.filenames].sort()).toEqual(['.hidden/conf.yml', 'src/a.ts']);
    const byType = await grep({ pattern: 'token', type: 'py' });
    expect(byType.ok && byType.data.filenames).toEqual(['src/b.py']);
  });

  it('cuts lines longer than 500 characters', async () => {
    await put('wide.txt', `start ${'w'.repeat(3000)}\n`);
    const outcome = await grep({ pattern: 'start', output_mode: 'content' });
    expect(outcome.ok && (outcome.data.content?.length ?? 0)).toBeLessThan(700);
  });

  it('explains an invalid regex and a missing path', async () => {
    await put('a.txt', 'x\n');
    const invalid = await grep({ pattern: 'foo(' });
    expect(invalid).toMatchObject({ ok: false, code: 'validation_failed' });
    expect(!invalid.ok && invalid.message).toMatch(/Invalid search pattern.*escape/s);
    expect(await grep({ pattern: 'x', path: 'missing-dir' })).toMatchObject({
      ok: false,
      code: 'file_not_found',
    });
    const none = await grep({ pattern: 'zzz' });
    expect(none.ok && none.text).toBe('No files found');
  });

  it('searches outside the working directory when given an absolute path', async () => {
    await writeFile(join(scratch.root, 'outside.txt'), 'far away\n');
    const outcome = await grep({ pattern: 'far', path: scratch.root, output_mode: 'files_with_matches' });
    expect(outcome.ok && outcome.data.filenames).toEqual([join(scratch.root, 'outside.txt')]);
  });
});

describe('Grep JS fallback on a catastrophic pattern', () => {
  it('keeps the event loop free, gives up at the deadline with advice, and stops at once on abort', async () => {
    project.context.run.env = {
      ...(await ripgrepEnv('js', scratch.root)),
      EFFERENT_JS_GREP_DEADLINE_MS: '400',
    };
    await put('evil.txt', `${'a'.repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const started = performance.now();
    const outcome = await runTool<GrepOutput>(
      GrepTool,
      { pattern: '(a+)+$', output_mode: 'content' },
      project.context,
    );
    clearInterval(ticker);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(/took longer than 0\.4 s[\s\S]*nested quantifiers/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(ticks).toBeGreaterThan(5); // the main thread kept running timers while the worker matched

    project.context.run.env = { ...project.context.run.env, EFFERENT_JS_GREP_DEADLINE_MS: '60000' };
    const controller = new AbortController();
    project.context.run.abortController = controller;
    setTimeout(() => controller.abort(new Error('interrupted')), 200);
    const abortStarted = performance.now();
    await expect(
      runTool<GrepOutput>(GrepTool, { pattern: '(a+)+$', output_mode: 'content' }, project.context),
    ).rejects.toThrow(/interrupted/);
    expect(performance.now() - abortStarted).toBeLessThan(3000);
  });
});
