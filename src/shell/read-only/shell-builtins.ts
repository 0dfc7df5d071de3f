import { isLocalVariableName } from '../env-vars.ts';
import type { ArgKind } from '../types.ts';
import type { CustomCheck } from './spec.ts';

/**
 * Builtins that only steer the current invocation of the shell: test expressions, harmless `set`
 * options, loop control and `read`. Variables do not outlive one Bash call, so the ones `read`
 * assigns change nothing later calls see.
 */

const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `set` letters that only change error handling or tracing (`-k`, `-P`, `-H`, `-p`, `-o posix` change parsing or lookups). */
const harmlessSetLetters = new Set(['e', 'u', 'x', 'v', 'C', 'f', 'B', 'h']);
const harmlessSetOptions = new Set([
  'errexit',
  'nounset',
  'pipefail',
  'xtrace',
  'verbose',
  'noclobber',
  'noglob',
  'braceexpand',
  'hashall',
  'errtrace',
]);

/** `set` with harmless options only (`set -euo pipefail`, `set +x`); no positional parameters. */
export function isHarmlessSet(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (kinds.some((kind) => kind !== 'literal')) return false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (!/^[-+][A-Za-z]+$/.test(word)) return false;
    let wantsName = 0;
    for (const letter of word.slice(1)) {
      if (letter === 'o') wantsName++;
      else if (!harmlessSetLetters.has(letter)) return false;
    }
    for (; wantsName > 0; wantsName--) {
      index++;
      if (!harmlessSetOptions.has(args[index] ?? '')) return false;
    }
  }
  return true;
}

/** `break` and `continue` with an optional loop count. */
function loopControl(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  return (
    args.length === 0 || (args.length === 1 && kinds[0] === 'literal' && /^[1-9][0-9]?$/.test(args[0] ?? ''))
  );
}

/**
 * `read` into local variable names (lowercase, not PATH or another name the shell or a program
 * uses), without readline (`-e`, `-i`) or a computed option.
 */
function read(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  if (kinds.some((kind) => kind !== 'literal')) return false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') return args.slice(index + 1).every(isLocalVariableName);
    if (!word.startsWith('-') || word === '-') {
      if (!isLocalVariableName(word)) return false;
      continue;
    }
    for (let position = 1; position < word.length; position++) {
      const letter = word[position] ?? '';
      if ('rs'.includes(letter)) continue;
      if ('adnNptu'.includes(letter)) {
        const value = word.slice(position + 1) || args[++index];
        if (value === undefined) return false;
        if (letter === 'a' && !isLocalVariableName(value)) return false;
        break;
      }
      return false;
    }
  }
  return true;
}

/** A `[ … ]` or `[[ … ]]` command; the walker has checked its operands (test-expression.ts). */
function bracketTest(close: string): (args: readonly string[]) => boolean {
  return (args) =>
    args[args.length - 1] === close &&
    !args.some((word, index) => word === '-v' && !plainName.test(args[index + 1] ?? '')) &&
    !(close === ']' && args.some((word) => word.includes('[')));
}

/** Read-only checks for the builtins above, keyed by name. */
export const shellBuiltinChecks: Record<string, CustomCheck> = {
  '[': { custom: bracketTest(']') },
  '[[': { custom: bracketTest(']]') },
  set: { custom: isHarmlessSet },
  break: { custom: loopControl },
  continue: { custom: loopControl },
  read: { custom: read },
};
