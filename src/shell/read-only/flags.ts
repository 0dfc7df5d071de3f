import { own } from '../own.ts';
import type { ArgKind } from '../types.ts';

/** Whether an option takes a value: never, always (attached or next word), or only attached. */
export type FlagArity = 'none' | 'value' | 'optional';

/** The options a command may use and stay read-only; anything not listed makes it not read-only. */
export interface FlagTable {
  [flag: string]: FlagArity;
}

/** One option as parsed: `-n 5` → `{flag:'-n', value:'5'}`. */
export interface ParsedFlag {
  flag: string;
  value?: string;
}

/** A command's arguments split into allowed options and operands. */
export interface ParsedArgs {
  flags: ParsedFlag[];
  operands: string[];
  /** Operands that are not literal (globs, variables, substitutions). */
  dynamicOperands: number;
}

/** How to parse one command's arguments. */
export interface ParseRules {
  flags: FlagTable;
  /** Accept `-5` style numeric options (head, tail). */
  numeric?: boolean;
  /** Arguments that are not literal may appear anywhere: no option of this command is dangerous. */
  anyArgSafe?: boolean;
  /** Options are only recognised before the first operand (POSIX order; git subcommands are not). */
  optionsFirst?: boolean;
  /**
   * For programs with their own option parser that end a value before its word ends and read the
   * rest as more options (less: `-x4klesskey` is `-x4` then `-k lesskey`, `--prompt=a$k…` ends at
   * `$`): the whole shape an attached value (`-x4`, `--tabs=4`) must have. A valued option of such
   * a program without a shape may not have an attached value at all.
   */
  attachedShapes?: Readonly<Record<string, RegExp>>;
  /**
   * For programs that take every option's value from the next word and go on reading the cluster
   * (tree: `-Lo 2 out` is `-L 2` and `-o out`).
   */
  valuesFromNextWord?: boolean;
}

/**
 * Whether a value taken from the next word could be read by the program as an option instead: it
 * starts with `-` and a letter or a second `-` (not `-`, `--` or a negative number). Such a value
 * stays acceptable only when the table would also allow it as options, so an option whose value
 * the table assumes but the program does not take (tree's `--fromfile`, git's `-U`, which only
 * takes an attached value) cannot hide the option after it.
 */
function optionLike(word: string): boolean {
  if (word.charCodeAt(0) !== 45 || word.length < 2) return false;
  const second = word.charCodeAt(1);
  if (second === 45) return word.length > 2;
  return (second >= 65 && second <= 90) || (second >= 97 && second <= 122);
}

/** A next-word value is safe whichever way the program reads it. */
function nextWordValueSafe(value: string, rules: ParseRules): boolean {
  if (!optionLike(value)) return true;
  return parseArgs([value], ['literal'], { ...rules, optionsFirst: false }) !== null;
}

/** Whether an attached value has the shape the program reads whole (always, for getopt programs). */
function attachedValueFits(flag: string, value: string, rules: ParseRules): boolean {
  const shapes = rules.attachedShapes;
  if (shapes === undefined) return true;
  const shape = own(shapes, flag);
  return shape?.test(value) === true;
}

/** Builds a flag table: short letters, long names, and those that take a value. */
export function flagTable(
  short: string,
  long: readonly string[] = [],
  shortValue = '',
  longValue: readonly string[] = [],
  longOptional: readonly string[] = [],
): FlagTable {
  const table: FlagTable = {};
  for (const letter of short) table[`-${letter}`] = 'none';
  for (const letter of shortValue) table[`-${letter}`] = 'value';
  for (const name of long) table[name] = 'none';
  for (const name of longValue) table[name] = 'value';
  for (const name of longOptional) table[name] = 'optional';
  return table;
}

/** Parses arguments against an allowlist; null when any option is unknown or misused. */
export function parseArgs(
  args: readonly string[],
  kinds: readonly ArgKind[],
  rules: ParseRules,
): ParsedArgs | null {
  const parsed: ParsedArgs = { flags: [], operands: [], dynamicOperands: 0 };
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    const kind = kinds[index] ?? 'literal';
    if (kind !== 'literal') {
      // A glob or variable may expand to a word that looks like any option.
      if (!rules.anyArgSafe) return null;
      parsed.operands.push(word);
      parsed.dynamicOperands++;
      continue;
    }
    if (optionsDone || word === '-' || !word.startsWith('-')) {
      parsed.operands.push(word);
      if (rules.optionsFirst) optionsDone = true;
      continue;
    }
    if (word === '--') {
      optionsDone = true;
      continue;
    }
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const name = equals === -1 ? word : word.slice(0, equals);
      const arity = own(rules.flags, name);
      if (arity === undefined) return null;
      if (equals !== -1) {
        if (arity === 'none') return null;
        const value = word.slice(equals + 1);
        if (!attachedValueFits(name, value, rules)) return null;
        parsed.flags.push({ flag: name, value });
        continue;
      }
      if (arity === 'value') {
        index++;
        if (index >= args.length || (kinds[index] ?? 'literal') !== 'literal') return null;
        const value = args[index] ?? '';
        if (!nextWordValueSafe(value, rules)) return null;
        parsed.flags.push({ flag: name, value });
        continue;
      }
      parsed.flags.push({ flag: name });
      continue;
    }
    if (rules.numeric && /^-\d+$/.test(word)) {
      parsed.flags.push({ flag: '-#', value: word.slice(1) });
      continue;
    }
    const whole = own(rules.flags, word);
    if (whole !== undefined && word.length > 2) {
      // Multi-letter single-dash options (`find -name`, `-maxdepth`).
      if (whole === 'value') {
        index++;
        if (index >= args.length || (kinds[index] ?? 'literal') !== 'literal') return null;
        const value = args[index] ?? '';
        if (!nextWordValueSafe(value, rules)) return null;
        parsed.flags.push({ flag: word, value });
      } else parsed.flags.push({ flag: word });
      continue;
    }
    for (let position = 1; position < word.length; position++) {
      const flag = `-${word[position] ?? ''}`;
      const arity = own(rules.flags, flag);
      if (arity === undefined) return null;
      if (arity === 'none') {
        parsed.flags.push({ flag });
        continue;
      }
      if (rules.valuesFromNextWord) {
        // The value is the next word whatever follows the letter; the cluster goes on.
        index++;
        if (index >= args.length || (kinds[index] ?? 'literal') !== 'literal') return null;
        const value = args[index] ?? '';
        if (!nextWordValueSafe(value, rules)) return null;
        parsed.flags.push({ flag, value });
        continue;
      }
      const attached = word.slice(position + 1);
      if (attached !== '') {
        if (!attachedValueFits(flag, attached, rules)) return null;
        parsed.flags.push({ flag, value: attached });
      } else if (arity === 'optional') parsed.flags.push({ flag });
      else {
        index++;
        if (index >= args.length || (kinds[index] ?? 'literal') !== 'literal') return null;
        const value = args[index] ?? '';
        if (!nextWordValueSafe(value, rules)) return null;
        parsed.flags.push({ flag, value });
      }
      break;
    }
  }
  return parsed;
}

/** True when any parsed option is one of `names`. */
export function hasFlag(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.flags.some((entry) => names.includes(entry.flag));
}
