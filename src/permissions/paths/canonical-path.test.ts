import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalizePath,
  fsRealpath,
  isUnresolvable,
  physicalPath,
  withPathMemo,
} from './canonical-path.ts';

/*
 * The real filesystem's answers: the directory's realpath(3) plus an lstat of the last name must
 * equal the component walk (which asks once per prefix), and answers remembered during one decision
 * must be asked again by the next.
 */

let root: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-canonical-')));
  mkdirSync(join(root, 'project/sub/deep'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'project/sub/deep/file.txt'), 'x');
  writeFileSync(join(root, 'outside/secret'), 'x');
  symlinkSync(join(root, 'outside'), join(root, 'project/out'));
  symlinkSync('sub/deep', join(root, 'project/rel'));
  symlinkSync('missing/target', join(root, 'project/dangling'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The walk alone: a realpath that is not the filesystem's own, so no shortcut applies. */
const walkOnly = (path: string) => fsRealpath(path);

describe('physicalPath on the real filesystem', () => {
  const spellings = [
    'project/sub/deep/file.txt',
    'project/out/secret',
    'project/rel/file.txt',
    'project/out/missing-file',
    'project/rel/new/dir/file',
    'project/dangling',
    'project/dangling/below',
    'project/./out/./secret',
    'project//rel//file.txt',
    'project/out',
    'missing/entirely',
    'project/sub/deep/file.txt/below',
    'project/rel',
    'project/.',
  ];
  it.each(spellings)(
    "%s: the directory's realpath and one lstat give what the component walk gives",
    (spelling) => {
      const absolute = `${root}/${spelling}`;
      expect(physicalPath(absolute, fsRealpath)).toBe(physicalPath(absolute, walkOnly));
    },
  );

  it('resolves links to their targets, dangling ones included', () => {
    expect(physicalPath(`${root}/project/out/secret`, fsRealpath)).toBe(`${root}/outside/secret`);
    expect(physicalPath(`${root}/project/dangling`, fsRealpath)).toBe(`${root}/project/missing/target`);
  });
});

describe('withPathMemo', () => {
  it('sees a link swapped between two decisions', () => {
    const link = join(root, 'project/swap');
    symlinkSync(join(root, 'project/sub'), link);
    const base = { cwd: join(root, 'project'), home: root };
    const first = withPathMemo(() => canonicalizePath('swap/deep', base));
    unlinkSync(link);
    symlinkSync(join(root, 'outside'), link);
    const second = withPathMemo(() => canonicalizePath('swap/deep', base));
    expect(isUnresolvable(first) ? first : first.physical).toBe(`${root}/project/sub/deep`);
    expect(isUnresolvable(second) ? second : second.physical).toBe(`${root}/outside/deep`);
    unlinkSync(link);
  });

  it('returns what the decision returns and forgets its answers when it throws', () => {
    expect(withPathMemo(() => 42)).toBe(42);
    expect(() =>
      withPathMemo(() => {
        throw new Error('inside');
      }),
    ).toThrow('inside');
    const link = join(root, 'project/after-throw');
    symlinkSync(join(root, 'outside'), link);
    expect(withPathMemo(() => fsRealpath(link))).toBe(join(root, 'outside'));
    unlinkSync(link);
  });
});
