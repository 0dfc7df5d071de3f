import type { ArgKind } from './types.ts';

/**
 * Files a command obviously writes through its arguments (not redirections): `tee FILE`,
 * `sort -o FILE`, `uniq IN OUT`, `cp/mv … DEST`, `touch`, `rm`, `mkdir`, `ln`. Best effort, for
 * path rules; commands not listed are still not read-only unless an allowlist says so.
 */
export function writeTargetsOf(argv: readonly string[], kinds: readonly ArgKind[]): string[] {
  const [name, ...args] = argv;
  if (name === undefined) return [];
  const operands: string[] = [];
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if ((kinds[index + 1] ?? 'literal') !== 'literal') continue;
    if (!optionsDone && word === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && word.startsWith('-') && word !== '-') continue;
    operands.push(word);
  }
  switch (name) {
    case 'tee':
    case 'touch':
    case 'rm':
    case 'rmdir':
    case 'mkdir':
    case 'truncate':
    case 'shred':
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return name === 'chmod' || name === 'chown' || name === 'chgrp' ? operands.slice(1) : operands;
    case 'cp':
    case 'mv':
    case 'ln':
    case 'install':
    case 'rsync':
    case 'scp':
      return operands.length > 1 ? operands.slice(-1) : [];
    case 'uniq':
      return operands.length > 1 ? operands.slice(1, 2) : [];
    case 'sort': {
      const output = args.findIndex(
        (word) => word === '-o' || word === '--output' || word.startsWith('--output='),
      );
      if (output === -1) return [];
      const word = args[output] ?? '';
      if (word.startsWith('--output=')) return [word.slice('--output='.length)];
      const next = args[output + 1];
      return next === undefined ? [] : [next];
    }
    default:
      return [];
  }
}
