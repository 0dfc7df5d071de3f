import type { ArgKind } from '../types.ts';

/**
 * Read-only find: an allowlist of tests and actions. `-exec`, `-execdir`, `-ok`, `-okdir` run
 * programs; `-delete` removes files; `-fprint`, `-fprint0`, `-fprintf`, `-fls` write files.
 */

/** Primaries without an argument. */
const plainPrimaries = new Set([
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-false',
  '-empty',
  '-readable',
  '-writable',
  '-executable',
  '-nouser',
  '-nogroup',
  '-depth',
  '-mount',
  '-xdev',
  '-noleaf',
  '-daystart',
  '-follow',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-not',
  '-and',
  '-or',
  '-a',
  '-o',
  '-d',
  '-s',
  '-x',
  '-E',
  '-X',
]);

/** Primaries that take one argument. */
const valuePrimaries = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-regextype',
  '-type',
  '-xtype',
  '-size',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-Btime',
  '-Bmin',
  '-newer',
  '-anewer',
  '-cnewer',
  '-used',
  '-maxdepth',
  '-mindepth',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-perm',
  '-links',
  '-inum',
  '-samefile',
  '-lname',
  '-ilname',
  '-fstype',
  '-printf',
  '-context',
  '-files0-from',
]);

/** Options before the paths. */
const leadingOptions = /^-(?:[HLP]|D\S*|O\d)$/;

/** Read-only check for `find …` (argv without the leading `find`). */
export function isReadOnlyFind(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  // Any expanded word could turn into `-delete` or `-exec`.
  if (kinds.some((kind) => kind !== 'literal')) return false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '!' || word === '(' || word === ')' || word === ',') continue;
    if (!word.startsWith('-') || word === '-') continue;
    if (leadingOptions.test(word)) continue;
    if (plainPrimaries.has(word)) continue;
    if (/^-newer[aBcmt][aBcmt]$/.test(word) || valuePrimaries.has(word)) {
      index++;
      if (index >= args.length) return false;
      continue;
    }
    return false;
  }
  return true;
}
