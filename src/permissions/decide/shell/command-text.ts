import { dashedGitSpelling } from './git-command-names.ts';
import { npmCanonicalSpellings } from './npm-command-names.ts';
import { firstWordOf } from '../../rules/shell-pattern.ts';
import { type AnalyzedSubcommandLike, isDynamicWord } from './shell-contract.ts';

/**
 * Spellings of one subcommand that shell rules are matched against. Allow rules see a single
 * canonical spelling; deny and ask rules see every plausible one, so a spelling trick can only
 * make a call ask, never let it through.
 */

/** Quotes a word only when needed, so `"git status"` (one word) never reads like `git status`. */
export function quoteWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./~^-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The canonical text allow rules are matched against: wrappers removed, no env prefix. */
export function canonicalCommandText(argv: readonly string[]): string {
  return argv.map(quoteWord).join(' ');
}

/** The canonical text including the env prefix, for allow rules that spell the assignment out. */
export function canonicalTextWithEnv(subcommand: AnalyzedSubcommandLike): string {
  const prefix = subcommand.envVars.map((variable) => `${variable.name}=${quoteWord(variable.value)}`);
  return [...prefix, canonicalCommandText(subcommand.argv)].join(' ');
}

const basenameOf = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/**
 * Every spelling deny and ask rules are tried against: unwrapped and raw words, joined plainly and
 * quoted, the program given by path reduced to its name (`/usr/bin/rm` → `rm`, `\rm` → `rm`), and
 * zsh's `=cmd` spelled as `cmd`, plus the source text.
 */
export function denySpellings(subcommand: AnalyzedSubcommandLike): string[] {
  const spellings = new Set<string>();
  for (const words of [subcommand.argv, subcommand.rawArgv]) {
    if (words.length === 0) continue;
    const [first = '', ...rest] = words;
    const programs = new Set([
      first,
      basenameOf(first),
      first.replace(/^[\\=]+/, ''),
      basenameOf(first.replace(/^[\\=]+/, '')),
    ]);
    for (const program of programs) {
      if (program === '') continue;
      spellings.add([program, ...rest].join(' '));
      spellings.add(canonicalCommandText([program, ...rest]));
    }
  }
  const dashed = dashedGitSpelling(subcommand.argv);
  if (dashed) spellings.add(dashed.join(' ')).add(canonicalCommandText(dashed));
  for (const npm of npmCanonicalSpellings(subcommand.argv))
    spellings.add(npm.join(' ')).add(canonicalCommandText(npm));
  for (const reordered of flagFirstOrders(subcommand.argv)) spellings.add(reordered.join(' '));
  for (const arranged of shortOptionArrangements(subcommand.argv)) spellings.add(arranged.join(' '));
  for (const dropped of leadingOptionsDropped(subcommand.argv)) {
    spellings.add(dropped.join(' '));
    spellings.add(canonicalCommandText(dropped));
  }
  spellings.add(subcommand.text.trim());
  if (subcommand.sourceText !== undefined) spellings.add(subcommand.sourceText.trim());
  return [...spellings];
}

/**
 * The first word of every spelling {@link denySpellings} gives, found without building them: the
 * program's spellings (as written and quoted) from the unwrapped and raw words, `git` for a dashed
 * git program, and the first word of the text and of the source text. A rule index that files no rule
 * under any of these words cannot match any of the spellings.
 */
export function denySpellingFirstWords(subcommand: AnalyzedSubcommandLike): string[] {
  const words: string[] = [];
  for (const list of [subcommand.argv, subcommand.rawArgv]) {
    const first = list[0];
    if (first === undefined) continue;
    const stripped = first.replace(/^[\\=]+/, '');
    for (const program of [first, basenameOf(first), stripped, basenameOf(stripped)]) {
      if (program === '') continue;
      words.push(firstWordOf(program), firstWordOf(quoteWord(program)));
    }
  }
  // `npm` spellings start with the program's own name, pushed above; dashed git ones with `git`.
  if (dashedGitSpelling(subcommand.argv)) words.push('git');
  words.push(firstWordOf(subcommand.text.trim()));
  if (subcommand.sourceText !== undefined) words.push(firstWordOf(subcommand.sourceText.trim()));
  return words;
}

/**
 * The argument list with each option in turn moved to the front of the arguments, so a deny on
 * `git branch -D*` still fires for `git branch -v -D main` (options may come in any order).
 */
function flagFirstOrders(argv: readonly string[]): string[][] {
  const first = argv.findIndex((word, index) => index > 0 && word.startsWith('-'));
  if (first === -1) return [];
  const head = argv.slice(0, first);
  const rest = argv.slice(first);
  const orders: string[][] = [];
  rest.forEach((word, index) => {
    if (index === 0 || !word.startsWith('-') || orders.length >= 16) return;
    orders.push([...head, word, ...rest.filter((_, other) => other !== index)]);
  });
  return orders;
}

/** Most distinct short option letters rearranged in every order (4 letters give 96 arrangements). */
const maxArrangedLetters = 4;

/** With more letters (up to this many), only clusters of up to three are tried, the rest kept in order. */
const maxClusteredLetters = 8;

/** Every ordered choice of one to `longest` letters from `letters`, each used at most once. */
function orderedChoices(letters: readonly string[], longest = letters.length): string[][] {
  const choices: string[][] = [];
  const extend = (chosen: string[]) => {
    if (chosen.length === longest) return;
    for (const letter of letters) {
      if (chosen.includes(letter)) continue;
      const next = [...chosen, letter];
      choices.push(next);
      extend(next);
    }
  };
  extend([]);
  return choices;
}

/**
 * The orders tried for the letters left out of a cluster when there are many: as written, and, after
 * a one-letter cluster, each other letter moved to the front (`rm -r -f *` names two separate options).
 */
function restOrders(cluster: readonly string[], remaining: readonly string[]): string[][] {
  const orders = [[...remaining]];
  if (cluster.length === 1)
    for (const letter of remaining) orders.push([letter, ...remaining.filter((other) => other !== letter)]);
  return orders;
}

/**
 * The argument list with its short options gathered in front of the operands (after the program,
 * and after a subcommand word), in every arrangement: some letters clustered in any order, the
 * others as separate options. `rm -fr x`, `rm -r -f x`, `rm x -rf` and `rm -rfv x` all read as
 * `rm -rf …` to a deny rule (class option-spelling, docs/decisions/security-option-spelling.md).
 * Moving a valued option away from its value can only make a deny rule match more often.
 */
function shortOptionArrangements(argv: readonly string[]): string[][] {
  const starts = argv[1] !== undefined && !argv[1].startsWith('-') ? [1, 2] : [1];
  const results: string[][] = [];
  for (const start of starts) {
    const tail = argv.slice(start);
    const end = tail.indexOf('--');
    const scanned = end === -1 ? tail : tail.slice(0, end);
    const after = end === -1 ? [] : tail.slice(end);
    const letters: string[] = [];
    const others: string[] = [];
    for (const word of scanned) {
      if (/^-[A-Za-z]+$/.test(word)) letters.push(...word.slice(1));
      else others.push(word);
    }
    const distinct = [...new Set(letters)];
    if (distinct.length === 0 || distinct.length > maxClusteredLetters) continue;
    // Up to four letters: every cluster and every order of the rest. More: clusters of up to three
    // letters (what deny rules name) with the rest as separate options in the order written.
    const every = distinct.length <= maxArrangedLetters;
    for (const cluster of orderedChoices(distinct, every ? distinct.length : 3)) {
      const remaining = distinct.filter((letter) => !cluster.includes(letter));
      const orders = every
        ? orderedChoices(remaining).filter((order) => order.length === remaining.length)
        : restOrders(cluster, remaining);
      for (const order of orders.length > 0 ? orders : [[]]) {
        const separate = order.map((letter) => `-${letter}`);
        results.push([...argv.slice(0, start), `-${cluster.join('')}`, ...separate, ...others, ...after]);
      }
    }
  }
  return results;
}

/**
 * The argument list with the program's leading options removed, once for every later word that may
 * be where the subcommand starts: `git -C . push`, `git --no-pager push`, `kubectl -n prod delete`
 * are `git push`, `kubectl delete` to a deny rule. Which option takes a value is not known per
 * program, so each cut is tried; a wrong cut can only make a deny rule match more often. A git
 * `-c alias.NAME=…` definition is expanded where NAME is used as the subcommand.
 */
function leadingOptionsDropped(argv: readonly string[]): string[][] {
  const [program = '', second] = argv;
  if (second === undefined || !second.startsWith('-')) return [];
  const results: string[][] = [];
  const aliases = new Map<string, string[]>();
  for (let index = 1; index < argv.length && results.length < 16; index++) {
    const word = argv[index] ?? '';
    const alias = /^(?:-c)?alias\.([^=]+)=!?(.*)$/s.exec(word);
    if (alias?.[1] !== undefined) aliases.set(alias[1], (alias[2] ?? '').split(/\s+/).filter(Boolean));
    if (word.startsWith('-')) continue;
    const rest = argv.slice(index);
    results.push([program, ...rest]);
    const expansion = aliases.get(word);
    if (expansion) results.push([program, ...expansion, ...rest.slice(1)]);
  }
  return results;
}

/**
 * The subcommand as messages quote it: its canonical text, or what was written when that text is
 * empty (a bare assignment) or holds run-time placeholders.
 */
export function subcommandLabel(subcommand: AnalyzedSubcommandLike): string {
  const text = subcommand.text.trim();
  const written = subcommand.sourceText?.trim();
  // Words only known at run time read as placeholders in the canonical text; quote what was written.
  const shown = written && (text === '' || isDynamicWord(text)) ? written : text;
  return `\`${shown}\``;
}
