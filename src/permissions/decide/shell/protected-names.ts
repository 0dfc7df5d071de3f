import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import {
  mayBeProtectedPath,
  mayNameProtectedEntry,
  protectedSegmentSpellings,
} from '../../../core/protected-paths.ts';
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
    const reason = protectedReasonOf(path);
    if (reason) return { piece: path.lexical, reason };
  }
  const { argv } = subcommand;
  // Pieces inside words are resolved against the directory the command runs in when that is not
  // where relative names were judged as written (`cd .claude; gcc -osettings.json`), or through links.
  const resolve = physical || (subcommand.cwd !== null && subcommand.cwd !== workspace.cwd);
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (subcommand.argKinds?.[index] === 'glob') {
      const matched = protectedMatchOf(word) ?? protectedEntryMatching(word, subcommand.cwd);
      if (matched) return matched;
    }
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
      const reason = protectedReasonOf(path);
      if (reason) return { piece: describeResolved(path), reason };
    }
  }
  return undefined;
}

/**
 * Why a resolved path is protected, as written or where its links lead, or undefined: each spelling
 * goes to the full check only past the one-pass gate.
 */
export function protectedReasonOf(path: CanonicalPath): string | undefined {
  return (
    writtenReason(path.lexical) ?? (path.physical !== path.lexical ? writtenReason(path.physical) : undefined)
  );
}

/**
 * A shell pattern whose matches may include a protected path, whether or not anything matches it
 * now (`.envr?`, `.clau*` then `/settings.json`, `CLAUDE.m?`, `.claude/settings.jso[n]`): each segment with
 * a wildcard is compared with every protected name (with bash's rule that a wildcard never matches
 * a leading dot), and the path with that name in its place is judged as written. A segment that
 * starts with `*` is left as it is: it cannot match a dotted name, and it is the everyday shape of
 * "every file ending in …" (`src/*.js` would match `pnpmfile.js`, `*.md` would match `CLAUDE.md`).
 */
export function protectedMatchOf(word: string): NamedProtected | undefined {
  if (!/[*?[]/.test(word)) return undefined;
  const segments = word.split('/');
  for (let at = 0; at < segments.length; at++) {
    const segment = segments[at] ?? '';
    if (!/[*?[]/.test(segment) || segment.startsWith('*') || /^[?]+$/.test(segment)) continue;
    for (const name of protectedSegmentSpellings) {
      if (!globMatches(segment, name)) continue;
      const path = [...segments.slice(0, at), name, ...segments.slice(at + 1)].join('/');
      const reason = protectedPathReason(path);
      if (reason) return { piece: `${word} (it may match ${path})`, reason };
    }
  }
  return undefined;
}

/** Entries read from one folder at most, to find what a `*` pattern matches now. */
const listedEntriesLimit = 10_000;

/**
 * What a pattern whose last segment starts with `*` (`*.md`, `src/*`, `*rc`) matches now, when one of
 * those entries is protected (`CLAUDE.md`, `pnpmfile.js`, `rust-toolchain`): such a segment is not
 * compared with protected names (every `*.md` would ask), so the folder is listed instead. One
 * listing, only for pattern words of commands that are not read-only.
 */
export function protectedEntryMatching(word: string, cwd: string | null): NamedProtected | undefined {
  const slash = word.lastIndexOf('/');
  const last = word.slice(slash + 1);
  const folder = slash === -1 ? '.' : word.slice(0, slash) || '/';
  if (!last.startsWith('*') || /[*?[]/.test(folder) || isDynamicText(folder)) return undefined;
  if (cwd === null && !folder.startsWith('/')) return undefined;
  const directory = posix.resolve(cwd ?? '/', folder);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return undefined;
  }
  if (names.length > listedEntriesLimit) return undefined;
  for (const name of names) {
    if (!mayNameProtectedEntry(name) || !globMatches(last, name.toLowerCase())) continue;
    const path = posix.join(directory, name);
    const reason = protectedPathReason(path);
    if (reason) return { piece: `${word} (it matches ${path})`, reason };
  }
  return undefined;
}

const isDynamicText = (text: string) => text.includes('$') || text.includes('`') || text.startsWith('~');

/** Whether a bash pattern segment matches a (lowercased) name: `*`, `?`, `[…]`, `[!…]`, case folded. */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false;
  return matchFrom(pattern.toLowerCase(), 0, name, 0);
}

function matchFrom(pattern: string, p: number, name: string, n: number): boolean {
  while (p < pattern.length) {
    const char = pattern.charAt(p);
    if (char === '*') {
      while (pattern.charAt(p) === '*') p++;
      if (p === pattern.length) return true;
      for (let from = n; from <= name.length; from++) if (matchFrom(pattern, p, name, from)) return true;
      return false;
    }
    if (n >= name.length) return false;
    if (char === '?') {
      p++;
      n++;
      continue;
    }
    if (char === '[') {
      const close = pattern.indexOf(']', p + 2);
      if (close !== -1) {
        let body = pattern.slice(p + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        const target = name.charAt(n);
        let inside = false;
        for (let at = 0; at < body.length; at++) {
          if (body.charAt(at + 1) === '-' && at + 2 < body.length) {
            if (target >= body.charAt(at) && target <= body.charAt(at + 2)) inside = true;
            at += 2;
          } else if (body.charAt(at) === target) inside = true;
        }
        if (inside === negated) return false;
        p = close + 1;
        n++;
        continue;
      }
    }
    if (char === '\\') p++;
    if (pattern.charAt(p) !== name.charAt(n)) return false;
    p++;
    n++;
  }
  return n === name.length;
}

/** Programs that change the directory later words of the command are resolved against. */
const directoryChanges = new Set(['cd', 'chdir', 'pushd']);

/**
 * A directory change into a protected directory, followed by a command that is not read-only: from
 * there every relative word, and every file it makes without naming it (`curl -O`, a build's
 * output), lands in the protected directory. After `cd .claude; …` or `pushd .claude; …` the
 * directory is unknown to the analysis (the change may fail), so the later command's words cannot
 * be resolved; this asks whatever the directory turned out to be. `git add`/`git commit` only
 * record and are excepted, as by the protected-name step.
 */
export function protectedDirectoryEntered(
  subcommands: readonly AnalyzedSubcommandLike[],
  workspace: Workspace,
  recordsOnly: (argv: readonly string[]) => boolean,
): { directory: string; reason: string; later: AnalyzedSubcommandLike } | undefined {
  let entered: { directory: string; reason: string } | undefined;
  for (const subcommand of subcommands) {
    const { argv } = subcommand;
    if (directoryChanges.has(argv[0] ?? '')) {
      entered ??= protectedTarget(subcommand, workspace);
      continue;
    }
    if (entered && !subcommand.readOnly && !recordsOnly(argv)) return { ...entered, later: subcommand };
  }
  return undefined;
}

function protectedTarget(
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
): { directory: string; reason: string } | undefined {
  const operands = subcommand.argv.slice(1).filter((word) => !/^-[LPe@n]*$/.test(word) || word === '-');
  const target = operands.at(-1);
  if (target === undefined || target === '-') return undefined;
  const expanded = expandHome(target, workspace.home, false);
  if (expanded === undefined) return undefined;
  const path = resolveInWorkspace(expanded, workspace, subcommand.cwd ?? workspace.cwd);
  if (isUnresolvable(path)) {
    const reason = writtenReason(expanded);
    return reason ? { directory: expanded, reason } : undefined;
  }
  const reason = protectedReasonOf(path);
  return reason ? { directory: describeResolved(path), reason } : undefined;
}

const describeResolved = (path: CanonicalPath) =>
  path.lexical === path.physical ? path.lexical : `${path.lexical} (→ ${path.physical})`;

/**
 * A protected path named in the text of a command the analyser could not split: each word between
 * blanks, quotes and shell operators, judged as {@link protectedPiece} judges one word.
 */
export function protectedPathInText(command: string): NamedProtected | undefined {
  const named = protectedPathInWords(command);
  if (named || !quoting.test(command)) return named;
  // The same text after the shell's quote removal: `.en''vrc`, `\.envrc`, `$'\x2eenvrc'`,
  // `$'\056envrc'` spell `.envrc` only once quotes are removed and escapes decoded.
  return protectedPathInWords(withoutQuotes(command));
}

/** Text that quote removal or ANSI-C decoding would change. */
const quoting = /['"\\]/;

/**
 * The text as the shell would read its words: `$'…'` decoded (`\xHH`, `\NNN`, `\uHHHH`, `\cX` and
 * the letter escapes), and elsewhere quotes dropped and each backslash-escaped character kept alone.
 * Approximate where it does not matter: a quote inside the other kind is dropped too, which can only
 * join more text into a word.
 */
export function withoutQuotes(command: string): string {
  let text = '';
  for (let at = 0; at < command.length; at++) {
    const char = command.charAt(at);
    if (char === '$' && command.charAt(at + 1) === "'") {
      const decoded = ansiC(command, at + 2);
      text += decoded.text;
      at = decoded.end;
      continue;
    }
    if (char === '\\') {
      text += command.charAt(++at);
      continue;
    }
    if (char === "'" || char === '"') continue;
    text += char;
  }
  return text;
}

const letterEscapes: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** Decodes the body of `$'…'` from `start` to its closing quote (the index returned as `end`). */
function ansiC(command: string, start: number): { text: string; end: number } {
  let text = '';
  let at = start;
  for (; at < command.length; at++) {
    const char = command.charAt(at);
    if (char === "'") break;
    if (char !== '\\') {
      text += char;
      continue;
    }
    const next = command.charAt(++at);
    const digits = (pattern: RegExp, max: number) => {
      let run = '';
      while (run.length < max && pattern.test(command.charAt(at + 1))) run += command.charAt(++at);
      return run;
    };
    if (next >= '0' && next <= '7') {
      at--;
      text += String.fromCodePoint(Number.parseInt(digits(/[0-7]/, 3), 8) & 0xff);
    } else if (next === 'x') {
      const hex = digits(/[0-9A-Fa-f]/, 2);
      text += hex ? String.fromCodePoint(Number.parseInt(hex, 16)) : '\\x';
    } else if (next === 'u' || next === 'U') {
      const hex = digits(/[0-9A-Fa-f]/, next === 'u' ? 4 : 8);
      const code = hex ? Number.parseInt(hex, 16) : Number.NaN;
      text += code <= 0x10ffff ? String.fromCodePoint(code) : `\\${next}`;
    } else if (next === 'c') {
      text += String.fromCharCode(command.charCodeAt(++at) & 0x1f);
    } else text += letterEscapes[next] ?? next;
  }
  return { text, end: at };
}

/** {@link protectedPathInText} on text as given. */
function protectedPathInWords(command: string): NamedProtected | undefined {
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
