import { mayBeProtectedPath } from '../../../core/protected-paths.ts';
import { type CanonicalPath, isUnresolvable, lexicalRealpath } from '../../paths/canonical-path.ts';
import { protectedPathReason } from '../../paths/protected-paths.ts';
import { resolveInWorkspace, type Workspace } from '../workspace.ts';
import { expandHome } from './command-paths.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * The one way the engine finds a protected path a command names (`security-named-protected-paths.md`).
 *
 * A word may name a path whole (`.envrc`), or in one of its parts: after an option letter
 * (`-o.envrc`, `-xo.git/config`), after `=`, `,` or `:` (`--out=.envrc`, `-Wl,-o,.git/x`,
 * `file:.envrc`), or as one of the words its braces expand to (`.env{rc,}`). {@link wordPieces}
 * lists them all; {@link protectedNameInWords} judges them for a subcommand, and
 * {@link protectedPathInText} for the text of a command too complex to parse.
 */

/** A brace group with a comma, which bash expands to several words: `{rc,}`. */
const braceGroup = /\{([^{}]*,[^{}]*)\}/;
/** What makes a word hold more than itself: braces, separators, or a leading single dash. */
const composite = /[{=,:]|^-[^-]/;

/** At most this many words are made from one word's braces (past that it is judged as written). */
export const braceBudget = 64;

/**
 * Every piece of one word that may name a path, the word itself first: each word its braces expand
 * to ({@link braceBudget} at most), and in each of these the parts between `=`, `,` and `:`, the
 * word and the value after its first `=` split at commas only, and what follows each letter of a short option
 * cluster (`-xo.git/config` gives `xo.git/config` and `o.git/config` and `.git/config`).
 */
export function wordPieces(word: string, budget = { left: braceBudget }): string[] {
  const pieces = [word];
  if (composite.test(word)) addPieces(word, pieces, budget);
  return pieces;
}

function addPieces(word: string, pieces: string[], budget: { left: number }): void {
  const group = word.includes('{') ? braceGroup.exec(word) : null;
  if (group) {
    const [whole, inside = ''] = group;
    for (const choice of inside.split(',')) {
      if (budget.left-- <= 0) break;
      const expanded = `${word.slice(0, group.index)}${choice}${word.slice(group.index + whole.length)}`;
      pieces.push(expanded);
      addPieces(expanded, pieces, budget);
    }
  }
  optionSuffixes(word, pieces);
  if (!/[=,:]/.test(word)) return;
  for (const part of word.split(/[=,:]/)) {
    if (part === word) continue;
    pieces.push(part);
    optionSuffixes(part, pieces);
  }
  // Split at commas only, too: a part may hold a `:` or `=` of its own (`-Wl,-o:x`, `--out=a:b`).
  if (word.includes(',')) pieces.push(...word.split(','));
  const equals = word.indexOf('=');
  if (equals !== -1) pieces.push(...word.slice(equals + 1).split(','));
}

/** What follows each letter of a short option cluster: `-xo.git/c` gives `xo.git/c`, `o.git/c`, `.git/c`. */
function optionSuffixes(word: string, pieces: string[]): void {
  if (word.length < 3 || word.charCodeAt(0) !== 45 || word.charCodeAt(1) === 45) return;
  for (let at = 2; at < word.length; at++) {
    pieces.push(word.slice(at));
    const code = word.charCodeAt(at - 1);
    const alphanumeric =
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    if (!alphanumeric) break;
  }
}

/** A protected path found, as the command spells it, and why it is protected. */
export interface NamedProtected {
  piece: string;
  reason: string;
}

/** Whether a piece as written names a protected path; one scan over it for everything else. */
const writtenReason = (piece: string): string | undefined =>
  mayBeProtectedPath(piece) ? protectedPathReason(piece) : undefined;

/** A protected path named in one word of the text of a command (every piece, as written). */
export function protectedPiece(word: string, budget = { left: braceBudget }): NamedProtected | undefined {
  for (const piece of wordPieces(word, budget)) {
    const reason = writtenReason(piece);
    if (reason) return { piece, reason };
  }
  return undefined;
}

/**
 * What a subcommand names, judged once: the paths its words resolve to (the read analysis's, lexical
 * and physical), then each piece of each word as written, then each piece inside a word resolved
 * against the directory the subcommand runs in. Pieces are resolved without system calls unless
 * `physical` (an allow rule or the mode may let the command run, and its outputs are not modelled):
 * then links are followed too (`-oc/config` when `c` links to `.git`).
 */
export function protectedNameInWords(
  subcommand: AnalyzedSubcommandLike,
  readPaths: readonly CanonicalPath[],
  workspace: Workspace,
  physical: boolean,
): NamedProtected | undefined {
  for (const path of readPaths) {
    const reason = mayBeProtectedPath(path.lexical)
      ? (protectedPathReason(path.lexical) ?? physicalReason(path))
      : physicalReason(path);
    if (reason) return { piece: path.lexical, reason };
  }
  const { argv } = subcommand;
  // Pieces inside words are resolved against the directory the command runs in when that is not
  // where relative names were judged as written (`cd .claude; gcc -osettings.json`), or through links.
  const resolve = physical || (subcommand.cwd !== null && subcommand.cwd !== workspace.cwd);
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!composite.test(word)) {
      // A whole word the read analysis resolved is judged above; as written, only one with a dot or
      // a run-time value (`$PWD/.envrc`) can add to that.
      const reason = word.includes('.') || word.includes('$') ? writtenReason(word) : undefined;
      if (reason) return { piece: word, reason };
      continue;
    }
    const pieces = wordPieces(word);
    for (const piece of pieces) {
      const reason = writtenReason(piece);
      if (reason) return { piece, reason };
    }
    if (!resolve) continue;
    for (let at = 1; at < pieces.length; at++) {
      const piece = pieces[at] ?? '';
      if (piece === '' || piece === '-') continue;
      const expanded = expandHome(piece, workspace.home, false);
      if (expanded === undefined || (subcommand.cwd === null && !expanded.startsWith('/'))) continue;
      const path = resolveInWorkspace(
        expanded,
        workspace,
        subcommand.cwd ?? workspace.cwd,
        physical ? workspace.realpath : lexicalRealpath,
      );
      if (isUnresolvable(path)) continue;
      const reason = writtenReason(path.lexical) ?? physicalReason(path);
      if (reason) return { piece: describeResolved(path), reason };
    }
  }
  return undefined;
}

const physicalReason = (path: CanonicalPath) =>
  path.physical !== path.lexical && mayBeProtectedPath(path.physical)
    ? protectedPathReason(path.physical)
    : undefined;

const describeResolved = (path: CanonicalPath) =>
  path.lexical === path.physical ? path.lexical : `${path.lexical} (→ ${path.physical})`;

/**
 * A protected path named in the text of a command the analyser could not split: each word between
 * blanks, quotes and shell operators, judged as {@link protectedPiece} judges one word.
 */
export function protectedPathInText(command: string): NamedProtected | undefined {
  // Only words holding a `.` can be judged protected: find each from its dot instead of splitting
  // the whole text (a command too complex to parse may be a megabyte long).
  for (let dot = command.indexOf('.'); dot !== -1; ) {
    let start = dot;
    while (start > 0 && !textSeparator.test(command.charAt(start - 1))) start--;
    let end = dot + 1;
    while (end < command.length && !textSeparator.test(command.charAt(end))) end++;
    const named = protectedPiece(command.slice(start, end));
    if (named) return named;
    dot = command.indexOf('.', end);
  }
  return undefined;
}

/** What separates the words of {@link protectedPathInText}: blanks, quotes and shell operators. */
const textSeparator = /[\s;&|<>()`"'\\]/;
