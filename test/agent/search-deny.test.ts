import { mkdir, mkdtemp, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { type ToolResultBlock, toolResultText } from '../../src/core/index.ts';
import { locateRipgrepForRun, type RipgrepSource } from '../../src/tools/shared/ripgrep.ts';

const secret = 'sk-live-0123456789';
const hiddenOne = "1 matching file is hidden by the user's Read deny rules.";

let root: string;
let project: string;
let systemBin: string;
let session: Session | undefined;

async function put(relative: string, content: string, ageSeconds = 60): Promise<string> {
  const target = join(project, relative);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, content);
  const time = new Date(Date.now() - ageSeconds * 1000);
  await utimes(target, time, time);
  return target;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-search-deny-')));
  project = join(root, 'project');
  // A PATH directory outside the project whose `rg` counts as the system's ripgrep.
  systemBin = join(root, 'bin');
  await mkdir(systemBin, { recursive: true });
  await symlink(rgPath, join(systemBin, 'rg'));
  await mkdir(join(root, 'home'), { recursive: true });
  await mkdir(join(root, 'outside'), { recursive: true });
  await writeFile(join(root, 'outside', 'leak.txt'), `API_KEY=${secret}\n`);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await rm(project, { recursive: true, force: true });
});

async function open(source: RipgrepSource, deny: string[]): Promise<Session> {
  await put('.efferent/settings.json', JSON.stringify({ permissions: { deny } }));
  const env = {
    ...process.env,
    EFFERENT_RG: source,
    ...(source === 'system' ? { PATH: `${systemBin}:${process.env.PATH ?? ''}` } : {}),
  };
  session = await createSession({ cwd: project, home: join(root, 'home'), env });
  // The test must exercise the source it names, not silently fall back to another.
  expect((await locateRipgrepForRun(session.context)).source).toBe(source);
  return session;
}

async function run(name: string, input: Record<string, unknown>): Promise<ToolResultBlock> {
  if (!session) throw new Error('no session');
  return session.callTool(name, input);
}

async function text(name: string, input: Record<string, unknown>): Promise<string> {
  const result = await run(name, input);
  const output = toolResultText(result);
  expect(result.isError, output).toBeFalsy();
  return output;
}

async function envProject(): Promise<void> {
  await put('.env', `API_KEY=${secret}\n`, 1);
  await put('src/app.ts', 'const key = process.env.API_KEY;\nexport default key;\n');
  await put('src/other.ts', 'export const API_KEY_NAME = "API_KEY";\n');
  await symlink('.env', join(project, 'notes'));
  // A link to the project itself: searching through it reaches .env under another spelling.
  await symlink('.', join(project, 'mirror'));
}

describe.each(['system', 'bundled', 'js'] as const)(
  'Read deny rules hide files from searches (%s ripgrep)',
  (source) => {
    it('Grep never shows a denied .env, in any output mode, with or without path', async () => {
      await envProject();
      await open(source, ['Read(./.env)']);
      for (const path of [undefined, '.', project, 'mirror']) {
        const where = path === undefined ? {} : { path };
        const content = await text('Grep', { pattern: 'API_KEY', output_mode: 'content', ...where });
        expect(content).toContain('src/app.ts');
        expect(content).not.toContain(secret);
        expect(content).not.toMatch(/(^|\/)\.env/m);
        expect(content).toContain(hiddenOne);
        const files = await text('Grep', { pattern: 'API_KEY', ...where });
        expect(files).toMatch(/Found 2 file\(s\)/);
        expect(files).not.toMatch(/(^|\/)\.env/m);
        expect(files).toContain(hiddenOne);
        const counts = await text('Grep', { pattern: 'API_KEY', output_mode: 'count', ...where });
        expect(counts).toMatch(/Found 2 matching lines across 2 file\(s\)/);
        expect(counts).not.toMatch(/(^|\/)\.env/m);
      }
    });

    it('keeps ripgrep line formats (context, no line numbers) while filtering', async () => {
      await envProject();
      await open(source, ['Read(./.env)']);
      const plain = await text('Grep', { pattern: 'API_KEY', output_mode: 'content', '-n': false, '-C': 1 });
      expect(plain.split('\n').slice(0, 3)).toEqual([
        'src/app.ts:const key = process.env.API_KEY;',
        'src/app.ts-export default key;',
        '--',
      ]);
      const numbered = await text('Grep', { pattern: 'default', output_mode: 'content', '-B': 1 });
      expect(numbered.split('\n').slice(0, 2)).toEqual([
        'src/app.ts-1-const key = process.env.API_KEY;',
        'src/app.ts:2:export default key;',
      ]);
    });

    it('applies head_limit and offset to visible results only', async () => {
      await envProject();
      await open(source, ['Read(./.env)']);
      // .env sorts first by path and is the newest file: a filter after paging would return an empty page.
      const first = await text('Grep', { pattern: 'API_KEY', output_mode: 'content', head_limit: 1 });
      expect(first.split('\n')[0]).toBe('src/app.ts:1:const key = process.env.API_KEY;');
      expect(first).toContain('offset: 1');
      const files = await text('Grep', { pattern: 'API_KEY', head_limit: 1 });
      expect(files).toMatch(/Found 1 file\(s\) \(limited\)\nsrc\/(app|other)\.ts/);
      const second = await text('Grep', {
        pattern: 'API_KEY',
        output_mode: 'count',
        head_limit: 1,
        offset: 1,
      });
      expect(second.split('\n')[0]).toBe('src/other.ts:1');
    });

    it('Glob never lists a denied file, and hidden files do not use up the 100-result cap', async () => {
      await envProject();
      for (let index = 0; index < 100; index++) await put(`docs/page-${index}.txt`, 'x', 100 + index);
      for (let index = 0; index < 5; index++) await put(`secrets/key-${index}.txt`, secret, 1);
      await open(source, ['Read(./.env)', 'Read(./secrets/**)']);
      const all = await text('Glob', { pattern: '**/*' });
      expect(all).not.toMatch(/(^|\/)(\.env|secrets\/)/m);
      expect(all).toContain("6 matching files are hidden by the user's Read deny rules.");
      const pages = await text('Glob', { pattern: '**/*.txt' });
      expect(pages.split('\n').filter((line) => line.startsWith('docs/'))).toHaveLength(100);
      expect(pages).not.toContain('truncated');
      expect(pages).not.toContain('secrets/');
      const direct = await text('Glob', { pattern: '.env' });
      expect(direct).toBe(`No files found\n${hiddenOne}`);
    });

    it('a link to a denied file is denied too, and a search through it finds nothing', async () => {
      await envProject();
      const current = await open(source, ['Read(./.env)']);
      expect(current.context.run.isReadDenied?.(join(project, 'notes'), project)).toBe(true);
      expect(current.context.run.isReadDenied?.(join(project, 'src/app.ts'), project)).toBe(false);
      const direct = await run('Grep', { pattern: 'API_KEY', path: 'notes', output_mode: 'content' });
      expect(direct.isError).toBe(true);
      expect(toolResultText(direct)).not.toContain(secret);
    });

    it("Grep's glob filters what the search walks and never widens it", async () => {
      await envProject();
      await open(source, []);
      for (const glob of ['../outside/*', '../**', join(root, 'outside', '*'), '/**/leak.txt']) {
        // ripgrep calls a filter that leaves nothing to search an error; either way nothing leaks.
        const found = toolResultText(await run('Grep', { pattern: 'API_KEY', glob, output_mode: 'content' }));
        expect(found, glob).toMatch(/^No matches found$|No files were searched/);
        expect(found, glob).not.toContain(secret);
      }
    });

    it('without Read deny rules nothing is filtered (the check is absent)', async () => {
      await envProject();
      const current = await open(source, ['Edit(./.env)']);
      expect(current.context.run.isReadDenied).toBeUndefined();
      const content = await text('Grep', { pattern: 'API_KEY', output_mode: 'content' });
      expect(content).toContain(secret);
      expect(content).not.toContain('hidden');
    });
  },
);

describe('Glob judges the directory it really walks', () => {
  it('asks (and so refuses without a person) for an absolute pattern or one that climbs out with ..', async () => {
    await envProject();
    await open('bundled', []);
    for (const pattern of ['/etc/*', '../outside/*', '../*', `${join(root, 'outside')}/*.txt`]) {
      const result = await run('Glob', { pattern });
      expect(result.isError, pattern).toBe(true);
      expect(toolResultText(result), pattern).toMatch(/outside the working directories/);
      expect(toolResultText(result), pattern).not.toContain('leak.txt');
    }
    const inside = await text('Glob', { pattern: 'src/../src/*.ts' });
    expect(inside.split('\n').sort()).toEqual(['src/app.ts', 'src/other.ts']);
  });
});
