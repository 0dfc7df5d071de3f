import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../core/index.ts';
import { canonicalPath, expandPath, isInWorkingDirectories, isPathInside, resolveToolPath } from './paths.ts';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'efferent-paths-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('expandPath', () => {
  it('expands ~ and resolves relative paths against cwd', () => {
    expect(expandPath('~', '/work', '/home/me')).toBe('/home/me');
    expect(expandPath('~/notes/a.md', '/work', '/home/me')).toBe('/home/me/notes/a.md');
    expect(expandPath('src/../lib/x.ts', '/work', '/home/me')).toBe('/work/lib/x.ts');
    expect(expandPath('/etc/hosts', '/work', '/home/me')).toBe('/etc/hosts');
    expect(expandPath('~user/x', '/work', '/home/me')).toBe('/work/~user/x');
  });

  it('uses the context cwd and HOME, never the process cwd', () => {
    const context = createToolUseContext({ cwd: '/somewhere', env: { HOME: '/home/ctx' } });
    expect(resolveToolPath('a.txt', context)).toBe('/somewhere/a.txt');
    expect(resolveToolPath('~/b', context)).toBe('/home/ctx/b');
  });
});

describe('isPathInside', () => {
  it('compares whole segments, not string prefixes', () => {
    expect(isPathInside('/a/b', '/a/b')).toBe(true);
    expect(isPathInside('/a/b/c', '/a/b')).toBe(true);
    expect(isPathInside('/a/bc', '/a/b')).toBe(false);
    expect(isPathInside('/a', '/a/b')).toBe(false);
    expect(isPathInside('/a/b/../c', '/a/b')).toBe(false);
    expect(isPathInside('/a/b/..foo', '/a/b')).toBe(true);
  });
});

describe('canonicalPath and workspace containment', () => {
  it('resolves symlinks, also for paths that do not exist yet', async () => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    expect(canonicalPath(join(dir, 'alias', 'new', 'file.txt'))).toBe(join(dir, 'real', 'new', 'file.txt'));
  });

  it('treats a symlink that points outside the project as outside', async () => {
    const project = join(dir, 'project');
    const outside = join(dir, 'outside');
    await mkdir(project);
    await mkdir(outside);
    await symlink(outside, join(project, 'escape'));
    const context = createToolUseContext({ cwd: project });
    expect(isInWorkingDirectories(join(project, 'src', 'a.ts'), context)).toBe(true);
    expect(isInWorkingDirectories(join(project, 'escape', 'a.ts'), context)).toBe(false);
    expect(isInWorkingDirectories(`${project}-sibling/a.ts`, context)).toBe(false);
  });

  it('counts additional directories as inside', async () => {
    const project = join(dir, 'p');
    const extra = join(dir, 'extra');
    await mkdir(project);
    await mkdir(extra);
    const context = createToolUseContext({ cwd: project, additionalDirectories: [extra] });
    expect(isInWorkingDirectories(join(extra, 'x'), context)).toBe(true);
  });
});
