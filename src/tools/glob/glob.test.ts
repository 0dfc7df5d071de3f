import { statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolUseContext, toolInputJsonSchema } from '../../core/index.ts';
import { locateRipgrep } from '../shared/ripgrep.ts';
import { makeTempProject, ripgrepEnv, runTool, type TempProject } from '../shared/test-support.ts';
import { type GlobOutput, GlobTool, splitAbsolutePattern } from './glob.ts';
import { globSearchRoot } from './glob-root.ts';

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

async function put(path: string, ageSeconds: number, content = 'x'): Promise<void> {
  const full = join(project.root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
  const time = new Date(Date.now() - ageSeconds * 1000);
  await utimes(full, time, time);
}

describe('Glob contract', () => {
  it('has the reference schema and read-only flags', () => {
    expect(Object.keys(toolInputJsonSchema(GlobTool)['properties'] as object)).toEqual(['pattern', 'path']);
    expect(GlobTool.isReadOnly({ pattern: '*' })).toBe(true);
    expect(GlobTool.isConcurrencySafe({ pattern: '*' })).toBe(true);
    expect(GlobTool.maxResultSizeChars).toBe(100_000);
  });

  it('splits absolute patterns at the first wildcard', () => {
    expect(splitAbsolutePattern('/repo/src/**/*.ts')).toEqual({ base: '/repo/src', pattern: '**/*.ts' });
    expect(splitAbsolutePattern('/repo/a.txt')).toEqual({ base: '/repo', pattern: 'a.txt' });
  });

  it('walks, and declares as its permission target, the directory the pattern really names', () => {
    const context = createToolUseContext({ cwd: '/srv/proj', env: { HOME: '/home/user' } });
    const target = (input: { pattern: string; path?: string }) => {
      const declared = GlobTool.permissionTarget(input, context);
      const walked = globSearchRoot(input, context);
      expect(declared).toEqual({ kind: 'path', path: walked.root, access: 'read' });
      return walked;
    };
    expect(target({ pattern: '**/*.ts' })).toEqual({ root: '/srv/proj', pattern: '**/*.ts' });
    expect(target({ pattern: '*.ts', path: 'src' })).toEqual({ root: '/srv/proj/src', pattern: '*.ts' });
    expect(target({ pattern: '/etc/*' })).toEqual({ root: '/etc', pattern: '*' });
    expect(target({ pattern: '../*' })).toEqual({ root: '/srv', pattern: '*' });
    expect(target({ pattern: 'src/../../other/**/*.ts' })).toEqual({
      root: '/srv/other',
      pattern: '**/*.ts',
    });
    expect(target({ pattern: '../x', path: 'a/b' })).toEqual({ root: '/srv/proj/a', pattern: 'x' });
    // After a wildcard, `..` can only fail to match: the walk never yields such paths.
    expect(target({ pattern: '*/../x' })).toEqual({ root: '/srv/proj', pattern: '*/../x' });
  });
});

describe.each(['system', 'bundled', 'js'] as const)('Glob with %s ripgrep', (source) => {
  beforeEach(async () => {
    project.context.run.env = await ripgrepEnv(source, scratch.root);
  });
  const glob = (input: Record<string, unknown>) => runTool<GlobOutput>(GlobTool, input, project.context);

  it('uses the requested source', async () => {
    expect((await locateRipgrep(project.context.run.env)).source).toBe(source);
  });

  it('sorts by mtime, newest first, and matches names at any depth', async () => {
    await put('old.ts', 300);
    await put('src/mid.ts', 200);
    await put('src/deep/new.ts', 100);
    await put('readme.md', 50);
    const outcome = await glob({ pattern: '*.ts' });
    expect(outcome.ok && outcome.data.filenames).toEqual(['src/deep/new.ts', 'src/mid.ts', 'old.ts']);
    const scoped = await glob({ pattern: 'src/**/*.ts' });
    expect(scoped.ok && scoped.data.filenames).toEqual(['src/deep/new.ts', 'src/mid.ts']);
    const inPath = await glob({ pattern: '*.ts', path: 'src' });
    expect(inPath.ok && inPath.data.filenames).toEqual(['src/deep/new.ts', 'src/mid.ts']);
  });

  it('skips VCS directories and node_modules, lists gitignored and hidden files', async () => {
    await put('.git/config.ts', 10);
    await put('node_modules/pkg/index.ts', 10);
    await put('build/out.ts', 10);
    await put('.github/workflow.ts', 10);
    await put('keep.ts', 10);
    await writeFile(join(project.root, '.gitignore'), 'build/\n');
    const outcome = await glob({ pattern: '**/*.ts' });
    expect(outcome.ok && [...outcome.data.filenames].sort()).toEqual([
      '.github/workflow.ts',
      'build/out.ts',
      'keep.ts',
    ]);
    // A pattern that also matches directory names must not re-admit the excluded ones.
    for (const pattern of ['**/*', '**', '*', '**/pkg/**']) {
      const all = await glob({ pattern });
      expect(
        all.ok && all.data.filenames.filter((path) => /node_modules|\.git\//.test(path)),
        pattern,
      ).toEqual([]);
    }
    const explicit = await glob({ pattern: 'node_modules/**/*.ts' });
    expect(explicit.ok && explicit.data.filenames).toEqual(['node_modules/pkg/index.ts']);
  });

  it('treats ignored files the same for every pattern shape, with and without ignore files honoured', async () => {
    await put('build/b.js', 30);
    await put('build/sub/c.js', 20);
    await put('debug.log', 10);
    await put('src/a.js', 40);
    await writeFile(join(project.root, '.gitignore'), 'build/\n*.log\n');
    const shapes: Array<[string, string[]]> = [
      ['build/*', ['build/b.js']],
      ['build/**/*', ['build/sub/c.js', 'build/b.js']],
      ['**/*.js', ['build/sub/c.js', 'build/b.js', 'src/a.js']],
      ['*.js', ['build/sub/c.js', 'build/b.js', 'src/a.js']],
      ['*.log', ['debug.log']],
      ['build/b.js', ['build/b.js']],
    ];
    for (const [pattern, expected] of shapes) {
      const listed = await glob({ pattern });
      expect(listed.ok && listed.data.filenames, pattern).toEqual(expected);
    }
    project.context.run.env = { ...project.context.run.env, CLAUDE_CODE_GLOB_NO_IGNORE: 'false' };
    for (const [pattern, expected] of shapes) {
      const listed = await glob({ pattern });
      const kept = expected.filter((path) => !path.startsWith('build/') && !path.endsWith('.log'));
      expect(listed.ok && listed.data.filenames, `${pattern} honouring .gitignore`).toEqual(kept);
    }
  });

  it('orders newest first across the whole tree when directory order and mtime order disagree', async () => {
    // Files of the two directories interleave in time, so sorting inside each directory (ripgrep
    // 13's --sortr) cannot give the global order.
    const ages: Array<[string, number]> = [
      ['d0/a.txt', 10],
      ['d1/c.txt', 20],
      ['d1/d.txt', 30],
      ['d0/b.txt', 40],
      ['top.txt', 25],
    ];
    for (const [path, age] of ages) await put(path, age);
    const expected = [...ages].sort((a, b) => a[1] - b[1]).map(([path]) => path);
    const outcome = await glob({ pattern: '**/*.txt' });
    expect(outcome.ok && outcome.data.filenames).toEqual(expected);
  });

  it('caps results at 100 with a truncation note', async () => {
    for (let index = 0; index < 120; index++) await put(`many/f${index}.txt`, 1000 - index);
    const outcome = await glob({ pattern: '**/*.txt' });
    expect(outcome.ok && outcome.data.numFiles).toBe(100);
    expect(outcome.ok && outcome.data.truncated).toBe(true);
    expect(outcome.ok && outcome.data.filenames[0]).toBe('many/f119.txt');
    expect(outcome.ok && outcome.text).toContain('truncated');
  });

  it('gives the newest 100 of thousands of matches, as a global sort by mtime and path would', async () => {
    // Enough long paths for ripgrep's output to arrive in several pieces; many equal times, so ties
    // are broken by path; listing order and time order unrelated.
    const paths = Array.from(
      { length: 3000 },
      (_, index) => `dir${index % 13}/a-rather-long-file-name-to-fill-the-pipe-${index}.ts`,
    );
    const ageOf = (index: number) => ((index * 7919) % 3001) % 40;
    await Promise.all(paths.map((path, index) => put(path, ageOf(index))));
    const stamped = paths.map((path) => ({ path, time: statSync(join(project.root, path)).mtimeMs }));
    const expected = stamped
      .sort((a, b) => b.time - a.time || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, 100)
      .map(({ path }) => path);
    for (const pattern of ['**/*.ts', '*.ts', 'dir*/*.ts']) {
      const outcome = await glob({ pattern });
      expect(outcome.ok && outcome.data.filenames, pattern).toEqual(expected);
      expect(outcome.ok && outcome.data.truncated).toBe(true);
    }
  });

  it('gives one answer through find, the perl stat helper and the stat threads, odd names and ties included', async () => {
    // Names with newlines, spaces, quotes and leading dashes, UTF-8 whose UTF-16 order differs from its
    // byte order, bytes that are not UTF-8, hidden files, a `.git` file and excluded directories, a
    // link to a file, one to nothing and one to a directory; three times only, so most of them tie.
    const odd = [
      'a/line\nbreak.ts',
      'a/é.ts',
      'a/\u{1F600}.ts',
      'a/\uFF61.ts',
      ...Array.from({ length: 150 }, (_, index) => `b/f${index}.ts`),
      '-dash/-x.ts',
      'sp ace/a b.ts',
      "q'uote.ts",
      '.hidden/.h.ts',
      'node_modules/m.ts',
      'b/node_modules/n.ts',
      'b/.git/g.ts',
    ];
    const base = Math.floor(Date.now() / 1000);
    for (const [index, path] of odd.entries()) {
      await put(path, 0);
      const time = base - (index < 4 ? 50 : index % 2 === 0 ? 100 : 200);
      await utimes(join(project.root, path), time, time);
    }
    writeFileSync(join(project.root, 'a', '.git'), 'gitdir: elsewhere\n');
    const invalid = (name: string) =>
      Buffer.concat([Buffer.from(`${project.root}/${name}`), Buffer.from([0xff]), Buffer.from('.ts')]);
    writeFileSync(invalid('a/bad'), '');
    symlinkSync('b/f0.ts', join(project.root, 'link.ts'));
    symlinkSync('nowhere.ts', join(project.root, 'dangling.ts'));
    symlinkSync('b', join(project.root, 'linkdir'));
    const env = project.context.run.env;
    const ways = [
      { EFFERENT_GLOB_FIND: '1' },
      { EFFERENT_GLOB_FIND: '0', EFFERENT_STAT_PERL: '1' },
      { EFFERENT_GLOB_FIND: '0', EFFERENT_STAT_PERL: '0' },
    ];
    const answers = async (pattern: string, limit = 100) => {
      const found: string[][] = [];
      for (const way of ways) {
        project.context.run.env = { ...env, ...way };
        const outcome = await glob({ pattern });
        found.push(outcome.ok ? outcome.data.filenames.slice(0, limit) : []);
      }
      return found;
    };
    // Patterns find pre-filters and picomatch decides: under a literal directory, a literal name.
    for (const pattern of ['a/*.ts', 'b/**/*.ts', 'sp ace/a b.ts', '-dash/-x.ts', '**/.h.ts', 'b/f1*.ts']) {
      const [withFind, ...others] = await answers(pattern);
      for (const other of others) expect(withFind, pattern).toEqual(other);
      expect(withFind?.length, pattern).toBeGreaterThan(0);
    }
    for (const pattern of ['**/*.ts', '*.ts']) {
      const [withFind, withPerl, withThreads] = await answers(pattern);
      expect(withFind, pattern).toEqual(withThreads);
      expect(withPerl, pattern).toEqual(withThreads);
      expect(withFind?.length, pattern).toBe(100);
      expect(withFind?.slice(0, 4), pattern).toEqual(
        ['a/line\nbreak.ts', 'a/é.ts', 'a/\uFF61.ts', 'a/\u{1F600}.ts'].sort((x, y) => (x < y ? -1 : 1)),
      );
      expect(
        withFind?.filter((path) => /node_modules|\.git\/|link/.test(path)),
        pattern,
      ).toEqual([]);
    }
    // The oldest ones too: everything listed, in one order.
    for (let index = 0; index < 150; index++) await rm(join(project.root, `b/f${index}.ts`));
    const [all, ...others] = await answers('**/*.ts');
    for (const other of others) expect(all).toEqual(other);
    expect([...(all ?? [])].sort()).toEqual(
      [
        '-dash/-x.ts',
        '.hidden/.h.ts',
        'a/bad\uFFFD.ts',
        "q'uote.ts",
        'sp ace/a b.ts',
        ...odd.slice(0, 4),
      ].sort(),
    );
    // A name that is not UTF-8 in the root itself (find is not given it): the same answer.
    writeFileSync(invalid(''), '');
    const [withRootOdd, ...rest] = await answers('**/*.ts');
    for (const other of rest) expect(withRootOdd).toEqual(other);
    expect(withRootOdd).toContain('\uFFFD.ts');
  });

  it('hides the same denied files and counts them the same through find and through ripgrep', async () => {
    for (let index = 0; index < 120; index++) await put(`docs/p${index}.ts`, 200 - index);
    for (let index = 0; index < 7; index++) await put(`secret/k${index}.ts`, index);
    project.context.run.isReadDenied = (path) => path.includes('/secret/');
    const env = project.context.run.env;
    const outputs: GlobOutput[] = [];
    for (const find of ['1', '0']) {
      project.context.run.env = { ...env, EFFERENT_GLOB_FIND: find };
      const outcome = await glob({ pattern: '**/*.ts' });
      if (outcome.ok) outputs.push(outcome.data);
    }
    const [throughFind, throughRipgrep] = outputs;
    expect(throughFind?.hiddenByDenyRules).toBe(7);
    expect(throughFind?.filenames).toEqual(throughRipgrep?.filenames);
    expect(throughFind?.hiddenByDenyRules).toBe(throughRipgrep?.hiddenByDenyRules);
    expect(throughFind?.filenames[0]).toBe('docs/p119.ts');
  });

  it('reports a missing directory and says when nothing matched', async () => {
    expect(await glob({ pattern: '*', path: 'nope' })).toMatchObject({ ok: false, code: 'file_not_found' });
    const none = await glob({ pattern: '*.zzz' });
    expect(none.ok && none.text).toBe('No files found');
  });
});
