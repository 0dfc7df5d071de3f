import { readdirSync } from 'node:fs';
import picomatch from 'picomatch';
import { mayNameProtectedEntry } from '../../../core/protected-paths.ts';
import { type CanonicalPath, isUnresolvable, lexicalRealpath } from '../../paths/canonical-path.ts';
import type { PermissionRule } from '../../rules/rule-types.ts';
import { describeRule, ruleStep, type Verdict } from '../verdict.ts';
import type { IndexedCheckContext } from './check-context.ts';
import { protectedReasonOf } from './protected-names.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { ask, describePath, resolveFrom } from './subcommand-checks.ts';

/**
 * Paths named inside **command text**: one word that holds a command line or code another program
 * runs (`flock -c 'cat .env' l`, `su -c 'cp x .claude/settings.json'`, `watch 'rm -rf .git'`,
 * `tmux new 'cat .env'`, `git -c core.pager='tee .git/hooks/pre-commit' -p log`,
 * `python3 -c 'open(".env")'`, `sqlite3 db '.read .env'`, `vim -c 'r .env' x`).
 *
 * The engine takes every argument of a command it does not model for a possible path, and splits a
 * word at `=`, `:`, `@`, `/` and `~` for fragments; a word with blanks, quotes or shell operators
 * inside is a command line, and the paths in it were never tried against the read and write deny
 * rules, the Read ask rules or the protected list. In bypassPermissions mode, where only those stand,
 * each of the commands above ran.
 *
 * Here a word of a subcommand that is not read-only is command text when it holds a blank, a quote,
 * a shell operator, a parenthesis or a backslash; it is split into the words a shell or an
 * interpreter would see (at those characters and at `,` `=` `:` `@` `{` `}`), and each is judged as a
 * path the command may read and write. A match asks as a safety question no mode answers: the text
 * may only mention the path (`npm test -- --grep '.env parsing'`), so it is not a denial, but only a
 * person can tell. Words a program never runs (git's commit message `-m`, `--message`, `--title`,
 * `--body`) are skipped.
 */

/**
 * A character that makes a word command text: blanks, quotes, shell operators, parentheses,
 * backslash, and `$` (`tee${IFS}.git/hooks/x` is two words to the shell that runs it).
 */
const textMark = /[\s;&|<>()`'"\\$]/;

/** Where command text splits into the words that may be paths. */
const tokenBreak = /[\s;&|<>()`'"\\,=:@{}]+/;

/** Glob characters a shell expands in a word of the text. */
const globMagic = /[*?[]/;

/** Long options whose value is prose for people, which no program runs (`gh pr create --body`). */
const proseOptions = new Set(['--message', '--title', '--body', '--subject', '--description', '--notes']);

/** git's short message options that take the next word (`git commit -m MSG`, `git commit -am MSG`). */
const gitMessageLetters = new Set(['-m', '-am']);

/** How many path-like words of one subcommand's text are resolved on disk at most; past that, it asks. */
const maxResolvedWords = 256;

/** Whether a word of the subcommand is prose (a message), not text any program runs. */
function proseWords(argv: readonly string[]): Set<number> {
  const prose = new Set<number>();
  const git = argv[0] === 'git';
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!word.startsWith('-')) continue;
    const equals = word.indexOf('=');
    const name = equals === -1 ? word : word.slice(0, equals);
    const takesNext = (git && gitMessageLetters.has(word)) || (equals === -1 && proseOptions.has(word));
    if (takesNext) {
      const next = argv[index + 1];
      // A word starting with `-` would be read as the next option by many programs, not as the value.
      if (next !== undefined && !next.startsWith('-')) prose.add(index + 1);
    } else if (equals !== -1 && proseOptions.has(name)) prose.add(index);
  }
  return prose;
}

/** The words of a subcommand that are command text: arguments and environment values. */
function commandTexts(subcommand: AnalyzedSubcommandLike): string[] | undefined {
  let texts: string[] | undefined;
  let prose: Set<number> | undefined;
  const { argv } = subcommand;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!textMark.test(word)) continue;
    prose ??= proseWords(argv);
    if (prose.has(index)) continue;
    if (texts === undefined) texts = [];
    texts.push(word);
  }
  for (const variable of subcommand.envVars) {
    if (!textMark.test(variable.value)) continue;
    if (texts === undefined) texts = [];
    texts.push(variable.value);
  }
  return texts;
}

/**
 * Parts of shell text only known when it runs (`$PWD`, `${X}`, `$(pwd)`, `` `pwd` ``, `~+`): dropped in
 * one more spelling of the text, so `$PWD/.env`, `"$(pwd)"/.env` and `.e${E}nv` still show `.env`.
 */
const runtimePart = /\$\([^()]*\)|`[^`]*`|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|~[+-](?=\/|$)/g;

/** A URL of a scheme other than `file`, up to the next blank or quote. */
const remoteUrl = /\b(?!file:)[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s'"`]*/g;

/** The words of command text that may name paths, each once; home spelled as `~`. */
function textTokens(texts: readonly string[]): string[] {
  const tokens = new Set<string>();
  const add = (token: string) => {
    if (token === '' || token === '-' || token === '--') return;
    tokens.add(token);
    // `-o.git/config`: a short option's value glued to its letter.
    if (/^-[A-Za-z]./.test(token) && !token.startsWith('--')) tokens.add(token.slice(2));
  };
  for (const written of texts) {
    // A URL other than `file:` names no local file (`curl -s https://host/x|sh`).
    const text = written.includes('://') ? written.replace(remoteUrl, ' ') : written;
    const homeAsTilde = text.includes('HOME') ? text.replace(/\$\{HOME\}|\$HOME\b/g, '~') : text;
    for (const token of homeAsTilde.split(tokenBreak)) add(token);
    // With the quoting a shell inside removes (`.e""nv`, `.e\\nv` are `.env`).
    const unquoted = homeAsTilde.replace(/["'\\]/g, '');
    if (unquoted !== homeAsTilde) for (const token of unquoted.split(tokenBreak)) add(token);
    if (!unquoted.includes('$') && !unquoted.includes('`') && !unquoted.includes('~')) continue;
    // Without what is only known at run time; what followed it is taken as relative to where it runs.
    // Dropped (`.e${E}nv`) and as a break between words (`tee${IFS}.git/x`).
    for (const filler of ['', ' '])
      for (const token of unquoted.replace(runtimePart, filler).split(tokenBreak)) {
        add(token);
        if (token.startsWith('/')) add(token.replace(/^\/+/, ''));
      }
  }
  return [...tokens];
}

/** What a path named in the text runs into, or undefined. */
type Finding = { path: string; what: string; rule?: PermissionRule; kind: 'safety' | 'rule' };

/** A last path segment with a dot after its first character (`a.ts`, `core.pager`): taken for a file. */
const fileName = /[^/]\.[^/]*$/;

function judgePath(
  path: CanonicalPath,
  context: IndexedCheckContext,
  resolved: boolean,
): Finding | undefined {
  const { readDeny, readAsk, writeDeny } = context.pathRules;
  const { scanLinks } = context.workspace;
  // A directory is looked into only for a word that may name one (`.`, `src`, `.ssh`), not `a.ts`.
  const mayBeDirectory = resolved && !fileName.test(path.lexical);
  const readRule = readDeny.find(path);
  if (readRule)
    return {
      path: path.lexical,
      what: `which ${describeRule(readRule)} denies reading`,
      rule: readRule,
      kind: 'safety',
    };
  if (mayBeDirectory && readDeny.size > 0 && readDeny.holdsCoveredPath(path, scanLinks))
    return { path: path.lexical, what: 'a directory holding files a read deny rule covers', kind: 'safety' };
  if (writeDeny.size > 0) {
    const directories = [path.lexical, path.physical];
    const rule =
      writeDeny.find(path) ??
      (mayBeDirectory
        ? (writeDeny.firstInside(directories) ??
          (writeDeny.holdsCoveredPath(path, scanLinks) ? writeDeny.firstAround(directories) : undefined))
        : undefined);
    if (rule)
      return {
        path: path.lexical,
        what: `which ${describeRule(rule)} protects from writes`,
        rule,
        kind: 'safety',
      };
  }
  const reason = protectedReasonOf(path);
  if (reason) return { path: describePath(path), what: `which is protected (${reason})`, kind: 'safety' };
  const askRule = readAsk?.find(path);
  if (askRule)
    return {
      path: path.lexical,
      what: `which matches ${describeRule(askRule)}`,
      rule: askRule,
      kind: 'rule',
    };
  return undefined;
}

const dotGlobbingSwitch = /dotglob|globignore|glob_?dots|bashopts|\([^)\s]*d[^)\s]*\)/i;

/** Whether a pattern in the subcommand's text may match names that start with a dot. */
function dotGlobbing(subcommand: AnalyzedSubcommandLike): boolean {
  if (dotGlobbingSwitch.test(subcommand.sourceText ?? subcommand.text)) return true;
  if (dotGlobbingSwitch.test(subcommand.text)) return true;
  return subcommand.envVars.some((variable) => dotGlobbingSwitch.test(`${variable.name}=${variable.value}`));
}

/** A glob word of the text: the entries of its directory it matches, judged one by one. */
function judgePattern(
  token: string,
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): Finding | undefined {
  const magicAt = token.search(globMagic);
  const slash = token.lastIndexOf('/', magicAt);
  const directory = slash === -1 ? '.' : token.slice(0, slash) || '/';
  const last = slash === -1 ? token : token.slice(slash + 1);
  const resolved = resolveFrom(directory, subcommand, context.workspace);
  if (isUnresolvable(resolved)) return undefined;
  if (last.includes('/')) {
    // Magic in a directory segment (`*/.env`, `**/x`): judged by what rules lie around the directory.
    const rule = context.pathRules.readDeny.firstAround([resolved.lexical, resolved.physical]);
    return rule
      ? { path: token, what: `a pattern reaching what ${describeRule(rule)} covers`, rule, kind: 'safety' }
      : undefined;
  }
  let names: string[];
  try {
    names = readdirSync(resolved.physical);
  } catch {
    return undefined;
  }
  // A shell's `*` and `?` pass over names that start with a dot (`echo '* item'` does not name .git)
  // unless the text turns that off: bash's dotglob or GLOBIGNORE, zsh's globdots or `(D)`, or a
  // BASHOPTS handed to the inner bash.
  const matches = picomatch(last, { dot: dotGlobbing(subcommand), nocase: true });
  for (const name of names) {
    if (!matches(name)) continue;
    const path = resolveFrom(`${directory}/${name}`, subcommand, context.workspace);
    if (isUnresolvable(path)) continue;
    const found = judgePath(path, context, true);
    if (found) return found;
  }
  return undefined;
}

/** The first path the subcommand's command text names that a rule or the protected list covers. */
function coveredPathInText(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): Finding | string | undefined {
  const texts = commandTexts(subcommand);
  if (texts === undefined) return undefined;
  const { workspace } = context;
  let resolvedCount = 0;
  for (const token of textTokens(texts)) {
    // A value only known at run time names nothing the engine can judge (the word still asks elsewhere).
    if (token.includes('$')) continue;
    if (/^~[^/]/.test(token)) continue;
    const pathLike = token.includes('.') || token.includes('/') || token.startsWith('~');
    if (globMagic.test(token)) {
      if (!pathLike && !token.includes('*') && !token.includes('?')) continue;
      if (++resolvedCount > maxResolvedWords) return 'more names than can be checked';
      const found = judgePattern(token, subcommand, context);
      if (found) return found;
      continue;
    }
    // A word without a dot, slash or home (`curl`, `-s`, `sh`) is judged only when its name alone
    // may be protected (no system call); the rest are resolved on disk.
    if (!pathLike && !mayNameProtectedEntry(token)) continue;
    if (pathLike && ++resolvedCount > maxResolvedWords) return 'more names than can be checked';
    const path = pathLike
      ? resolveFrom(token, subcommand, workspace)
      : resolveFrom(token, subcommand, workspace, lexicalRealpath);
    if (isUnresolvable(path)) continue;
    const found = judgePath(path, context, pathLike);
    if (found) return found;
  }
  return undefined;
}

/**
 * An ask when a subcommand that is not read-only carries command text (a word another program runs
 * as a command line or code) naming a path a read or write deny rule, a Read ask rule or the
 * protected list covers.
 */
export function commandTextNamesCoveredPath(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  label: string,
): Verdict | undefined {
  if (subcommand.readOnly) return undefined;
  const found = coveredPathInText(subcommand, context);
  if (found === undefined) return undefined;
  if (typeof found === 'string')
    return ask(
      'safety',
      `${label} carries command text with ${found} against the deny rules and protected paths`,
      {
        classifierApprovable: false,
      },
    );
  const reason = `${label} carries command text that names ${found.path}, ${found.what}`;
  if (found.kind === 'rule' && found.rule)
    return ask('rule', reason, {
      rule: found.rule,
      steps: [ruleStep(found.rule, 'ask', `The command text may read ${found.path}.`)],
    });
  return ask('safety', reason, {
    ...(found.rule ? { rule: found.rule } : {}),
    classifierApprovable: false,
  });
}
