import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readOwnFileSync } from '../../../core/index.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import type { Verdict } from '../verdict.ts';
import { projectCodeAsk } from './subcommand-checks.ts';

/**
 * `make -n` (`--dry-run`, `-q`, `-p`…) is not a sandbox: while it reads the makefiles it expands
 * `$(shell …)`, `$(file >…)`, `$(guile …)`, `!=` assignments and `load` directives, it runs every
 * recipe line that is marked `+` or mentions `$(MAKE)`, and it remakes a makefile (an included one,
 * or the makefile itself) that a rule can update. A person who allows `Bash(make -n:*)` asked for
 * a listing. When a make dry run is about to be allowed by such a rule, the makefiles it would read (the first of
 * `GNUmakefile`, `makefile`, `Makefile`, or each `-f`, after `-C`) and every file they include are
 * read as text, and the call asks when any holds one of those constructs, or an include that cannot
 * be followed (a variable, a missing file make would try to make). Only make dry runs pay for it.
 */

const makePrograms = new Set(['make', 'gmake']);

/** Long options that make a run a dry run (with their unambiguous abbreviations accepted by make). */
const dryLongOptions = ['--just-print', '--dry-run', '--recon', '--question', '--print-data-base'];
/** Short dry-run options. */
const dryShortOptions = new Set(['n', 'q', 'p']);
/** Short options taking a value (attached or the next word); `j` and `l` take an optional number. */
const shortWithValue = new Set(['C', 'f', 'I', 'o', 'W', 'O', 'E']);
const longWithValue = [
  '--directory',
  '--file',
  '--makefile',
  '--include-dir',
  '--old-file',
  '--assume-old',
  '--new-file',
  '--assume-new',
  '--what-if',
  '--output-sync',
  '--eval',
  '--jobs',
  '--load-average',
  '--debug',
  '--shuffle',
  '--jobserver-style',
];

/** What a make command line reads, or why it cannot be modelled. */
interface MakeLine {
  dry: boolean;
  directory: string;
  files: string[];
  includeDirs: boolean;
  quiet: boolean;
}

function readMakeLine(subcommand: AnalyzedSubcommandLike, cwd: string): MakeLine | string {
  const line: MakeLine = { dry: false, directory: cwd, files: [], includeDirs: false, quiet: false };
  const { argv } = subcommand;
  const known = (index: number) => (subcommand.argKinds?.[index] ?? 'literal') === 'literal';
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word === '--') break;
    if (word.startsWith('--')) {
      const [name, attached] = word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
      if (name === '--version' || name === '--help') {
        line.quiet = true;
        continue;
      }
      if (name.length > 2 && dryLongOptions.some((option) => option.startsWith(name))) {
        line.dry = true;
        continue;
      }
      const valued = longWithValue.filter((option) => option.startsWith(name));
      if (valued.length > 0) {
        const value =
          attached ??
          (['--jobs', '--load-average', '--debug', '--shuffle'].includes(valued[0] as string)
            ? ''
            : argv[++index]);
        if (value === undefined || (attached === undefined && value !== '' && !known(index)))
          return `its option ${name} has a value only known when it runs`;
        const option = valued[0] as string;
        if (option === '--directory') line.directory = resolve(line.directory, value);
        else if (option === '--file' || option === '--makefile')
          line.files.push(resolve(line.directory, value));
        else if (option === '--include-dir') line.includeDirs = true;
      }
      continue;
    }
    if (!word.startsWith('-') || word === '-') continue;
    if (!known(index)) return `its option ${word} is only known when it runs`;
    for (let at = 1; at < word.length; at++) {
      const option = word[at] as string;
      if (dryShortOptions.has(option)) line.dry = true;
      if (option === 'v') line.quiet = true;
      if (!shortWithValue.has(option)) continue;
      const rest = word.slice(at + 1);
      const value = rest !== '' ? rest : argv[++index];
      if (value === undefined || (rest === '' && !known(index)))
        return `its option -${option} has a value only known when it runs`;
      if (option === 'C') line.directory = resolve(line.directory, value);
      else if (option === 'f') line.files.push(value === '-' ? '-' : resolve(line.directory, value));
      else if (option === 'I') line.includeDirs = true;
      break;
    }
  }
  return line;
}

/** Constructs that run a program, write a file or load code while make only reads its makefiles. */
const runningConstructs: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /\$[({]\s*shell[\s)}]/, what: 'a $(shell …) call, which make expands while reading' },
  { pattern: /\$[({]\s*file\s/, what: 'a $(file …) call, which writes a file while make reads' },
  { pattern: /\$[({]\s*guile\s/, what: 'a $(guile …) call' },
  { pattern: /\$[({]\s*eval\s/, what: 'an $(eval …) call, whose text is only known when make runs' },
  { pattern: /^(?!\t)[^#\n]*!=/m, what: 'a != assignment, which runs a shell command' },
  { pattern: /^[ \t]*-?load[ \t]/m, what: 'a load directive, which loads a shared object' },
  { pattern: /\bMAKE\b/, what: 'a $(MAKE) reference, whose recipe lines run even with -n' },
  { pattern: /^\t[ \t@-]*\+/m, what: 'a + recipe line, which runs even with -n' },
  { pattern: /;[ \t@-]*\+/, what: 'a + recipe, which runs even with -n' },
  { pattern: /\.RECIPEPREFIX/, what: 'a .RECIPEPREFIX, which changes which lines are recipes' },
];

/** Include directives: `include`, `-include`, `sinclude`. */
const includeDirective = /^[ \t]*(?:-include|sinclude|include)[ \t]+([^#\n]*)/gm;

const maxMakefiles = 32;

/** Why make would run something while only reading, or undefined. */
function makefileConcern(line: MakeLine): string | undefined {
  if (line.files.includes('-')) return 'it reads a makefile from standard input';
  let queue = line.files;
  if (queue.length === 0) {
    const first = ['GNUmakefile', 'makefile', 'Makefile']
      .map((name) => join(line.directory, name))
      .find((path) => existsSync(path));
    if (first === undefined) return undefined;
    queue = [first];
  }
  const read: string[] = [];
  const texts: Array<{ path: string; text: string }> = [];
  while (queue.length > 0) {
    const path = queue.shift() as string;
    if (read.includes(path)) continue;
    if (read.length >= maxMakefiles) return `it includes more than ${maxMakefiles} makefiles`;
    read.push(path);
    const file = readOwnFileSync(path, { maxBytes: 1_048_576 });
    if (file.kind === 'missing') return `${path} does not exist, and make would try to make it`;
    if (file.kind !== 'read') return `${path} cannot be read (${file.reason})`;
    const text = file.text.replace(/\\\r?\n/g, ' ');
    texts.push({ path, text });
    for (const match of text.matchAll(includeDirective)) {
      const names = (match[1] as string).trim();
      if (names === '') continue;
      if (names.includes('$') || /[*?[]/.test(names) || line.includeDirs)
        return `${path} includes ${names}, which is only known when make runs`;
      queue = [...queue, ...names.split(/\s+/).map((name) => resolve(line.directory, name))];
    }
  }
  for (const { path, text } of texts) {
    const found = runningConstructs.find(({ pattern }) => pattern.test(text));
    if (found) return `${path} has ${found.what}`;
    const remade = remadeMakefile(text, read);
    if (remade) return `${path} has a rule for ${remade}, which make remakes before a dry run`;
  }
  return undefined;
}

/** A makefile that a rule of `text` can update (an explicit target or a `%` pattern matching it). */
function remadeMakefile(text: string, makefiles: readonly string[]): string | undefined {
  const names = makefiles.map((path) => ({ path, name: path.slice(path.lastIndexOf('/') + 1) }));
  for (const rule of text.matchAll(/^([^\t#\n=][^#\n=]*?):(?!=)/gm)) {
    for (const target of (rule[1] as string).trim().split(/\s+/)) {
      const percent = target.indexOf('%');
      for (const { path, name } of names) {
        const bare = target.replace(/^\.\//, '');
        if (bare === name || resolve(path, '..', bare) === path) return path;
        if (percent !== -1) {
          const prefix = target.slice(0, percent);
          const suffix = target.slice(percent + 1);
          if (
            name.length >= prefix.length + suffix.length &&
            name.startsWith(prefix) &&
            name.endsWith(suffix)
          )
            return path;
        }
      }
    }
  }
  return undefined;
}

/**
 * Whether the allow rule itself is for a dry run (`Bash(make -n:*)`, `Bash(make --dry-run)`,
 * `Bash(make -np)`): a rule such as `Bash(make:*)` already lets the makefile run, so a dry run under
 * it needs no question.
 */
function ruleNamesDryRun(text: string | undefined): boolean {
  if (text === undefined) return false;
  const open = text.indexOf('(');
  const words = text.slice(open + 1, text.endsWith(')') ? -1 : undefined).split(/[\s:]+/);
  return words.some(
    (word) =>
      (/^-[A-Za-z]+$/.test(word) && /[nqp]/.test(word.slice(1).replace(/[CfIoWOE].*$/, ''))) ||
      (word.length > 2 && word.startsWith('--') && dryLongOptions.some((option) => option.startsWith(word))),
  );
}

/**
 * A make dry run about to be allowed by a rule for dry runs asks when the makefiles it reads would
 * run something anyway. Every other make command is the person's "run the build", left as the rules decide.
 */
export function makeDryRunBeforeAllow(
  subcommand: AnalyzedSubcommandLike,
  verdict: Verdict,
  mode: string,
): Verdict {
  if (verdict.behavior !== 'allow' || mode === 'bypassPermissions') return verdict;
  const program = subcommand.argv[0] ?? '';
  if (!makePrograms.has(program.slice(program.lastIndexOf('/') + 1))) return verdict;
  if (!ruleNamesDryRun(verdict.rule?.text)) return verdict;
  const cwd = subcommand.cwd;
  const parsed =
    cwd === null ? 'the directory it runs in is only known when it runs' : readMakeLine(subcommand, cwd);
  if (typeof parsed !== 'string' && (!parsed.dry || parsed.quiet)) return verdict;
  const concern = typeof parsed === 'string' ? parsed : makefileConcern(parsed);
  if (concern === undefined) return verdict;
  const reason = `make runs commands even in a dry run: ${concern}`;
  return projectCodeAsk(reason);
}
