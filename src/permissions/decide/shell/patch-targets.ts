import { readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { protectedPathReason } from '../../paths/protected-paths.ts';
import type { Workspace } from '../workspace.ts';
import { expandHome } from './command-paths.ts';
import { gitValuedGlobalOptions } from './git-command-names.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * Programs that write the files a patch names, not the files their words name: `git apply`,
 * `git am` and `patch`. `git apply x.patch` under `Bash(git *)` wrote a `.claude/settings.json` or
 * an `.envrc` the patch created, and no word of the command named it.
 */

/** The largest patch read at decision time; a bigger one is not known before it runs. */
const patchReadLimit = 8 * 1024 * 1024;

/** What a patch applier writes, as far as can be known before it runs. */
export type PatchWrites =
  | { kind: 'protected'; path: string; reason: string }
  | { kind: 'unknown'; why: string }
  | undefined;

interface Applier {
  program: 'patch' | 'apply' | 'am';
  args: readonly string[];
}

/** `patch …`, `git apply …`, `git am …` (git's global options skipped); undefined for anything else. */
function applierOf(argv: readonly string[]): Applier | undefined {
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  if (name === 'patch') return { program: 'patch', args: argv.slice(1) };
  if (name === 'git-apply') return { program: 'apply', args: argv.slice(1) };
  if (name === 'git-am') return { program: 'am', args: argv.slice(1) };
  if (name !== 'git') return undefined;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (gitValuedGlobalOptions.has(word)) index++;
    else if (!word.startsWith('-'))
      return word === 'apply' || word === 'am' ? { program: word, args: argv.slice(index + 1) } : undefined;
  }
  return undefined;
}

/** Options of each applier that take the next word as their value (when not glued to it). */
const valued: Readonly<Record<Applier['program'], ReadonlySet<string>>> = {
  patch: new Set(['-i', '-d', '-p', '-o', '-B', '-Y', '-z', '-D', '-F', '-r', '-V', '-g']),
  apply: new Set(['-p', '-C', '--exclude', '--include', '--directory', '--whitespace']),
  am: new Set(['-p', '-C', '--exclude', '--include', '--directory', '--whitespace', '-S', '--patch-format']),
};

/** git apply options that only report and write nothing unless `--apply` is given too. */
const reportOnly = new Set(['--check', '--stat', '--numstat', '--summary']);
/** git am options that resume or stop a run whose patches were read (and judged) before. */
const resume = new Set([
  '--continue',
  '--skip',
  '--abort',
  '--quit',
  '--show-current-patch',
  '-r',
  '--resolved',
]);

/**
 * The protected path a patch applier would write, or why its patch cannot be read now (it comes
 * from a pipe, a file made earlier in the command, a mailbox folder, or is larger than 8 MiB).
 * Cost: nothing for other programs; one stat and one bounded read of the patch for these.
 */
export function patchWrites(subcommand: AnalyzedSubcommandLike, workspace: Workspace): PatchWrites {
  const applier = applierOf(subcommand.argv);
  if (!applier) return undefined;
  const { program, args } = applier;
  const operands: string[] = [];
  let input: string | undefined;
  let directory = '';
  let strip: number | undefined;
  let onlyReports = false;
  let applies = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (program === 'am' && resume.has(word)) return undefined;
    if (program === 'apply' && reportOnly.has(word)) onlyReports = true;
    if (program === 'apply' && word === '--apply') applies = true;
    if (!word.startsWith('-') || word === '-') {
      operands.push(word);
      continue;
    }
    const [option = word, glued] = optionParts(word);
    const value = glued ?? (valued[program].has(option) ? args[++index] : undefined);
    if (value === undefined) continue;
    if ((option === '-i' || option === '--input') && program === 'patch') input = value;
    if (option === '--directory' || (option === '-d' && program === 'patch')) directory = value;
    if (option === '-p' || option === '--strip') strip = Number(value);
  }
  if (onlyReports && !applies) return undefined;
  const cwd = subcommand.cwd;
  if (cwd === null) return { kind: 'unknown', why: 'it runs in a directory not known before it runs' };
  // patch: [ORIGINAL [PATCHFILE]] (the original is a named word, judged as such); the others: files.
  const sources = program === 'patch' ? [input ?? operands[1]] : operands.length > 0 ? operands : [undefined];
  const texts: string[] = [];
  for (const source of sources) {
    const file = source ?? stdinFile(subcommand);
    if (file === undefined)
      return { kind: 'unknown', why: 'its patch comes from its input, which is not a file' };
    const text = readPatch(file, cwd, workspace);
    if (text === undefined)
      return { kind: 'unknown', why: `its patch ${file} cannot be read before it runs` };
    texts.push(text);
  }
  const base = posix.resolve(cwd, expandHome(directory, workspace.home, true) ?? directory);
  for (const text of texts)
    for (const target of patchTargets(text)) {
      for (const path of strippedForms(target, strip)) {
        const resolved = posix.resolve(base, path);
        const reason = protectedPathReason(resolved) ?? protectedPathReason(path);
        if (reason) return { kind: 'protected', path: resolved, reason };
      }
    }
  return undefined;
}

/** `-p1` → [`-p`, `1`], `--directory=x` → [`--directory`, `x`], `-R` → [`-R`]. */
function optionParts(word: string): [string, string?] {
  if (word.startsWith('--')) {
    const equals = word.indexOf('=');
    return equals === -1 ? [word] : [word.slice(0, equals), word.slice(equals + 1)];
  }
  return word.length > 2 && /^-[ipdoBYzDFrVgCS]/.test(word) ? [word.slice(0, 2), word.slice(2)] : [word];
}

/** The file a `<` redirection gives as the program's input, if any. */
function stdinFile(subcommand: AnalyzedSubcommandLike): string | undefined {
  for (const redirect of subcommand.redirects)
    if (redirect.operator === '<' && (redirect.fd === undefined || redirect.fd === 0)) return redirect.target;
  return undefined;
}

function readPatch(file: string, cwd: string, workspace: Workspace): string | undefined {
  const expanded = expandHome(file, workspace.home, false);
  if (expanded === undefined || expanded === '-') return undefined;
  const path = posix.resolve(cwd, expanded);
  try {
    const info = statSync(path);
    if (!info.isFile() || info.size > patchReadLimit) return undefined;
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/** Every path a unified or git diff writes: `diff --git a/X b/Y`, `+++ Y`, `--- X`, rename/copy targets. */
export function patchTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) targets.push(diffPath(line.slice(4)));
    else if (line.startsWith('diff --git ')) {
      const rest = line.slice(11);
      const split = rest.indexOf(' b/');
      if (split !== -1) targets.push(diffPath(rest.slice(0, split)), diffPath(rest.slice(split + 1)));
      else targets.push(...rest.split(' ').map(diffPath));
    } else {
      const named = /^(?:rename|copy) (?:to|from) (.*)$/.exec(line);
      if (named?.[1] !== undefined) targets.push(diffPath(named[1]));
    }
  }
  return targets.filter((path) => path !== '' && path !== '/dev/null');
}

/** A diff header's path: up to a tab (a time stamp follows), a C-quoted name decoded. */
function diffPath(field: string): string {
  const plain = field.split('\t')[0]?.replace(/\r$/, '') ?? '';
  if (!plain.startsWith('"')) return plain.trim();
  const body = plain.slice(1, plain.lastIndexOf('"') > 0 ? plain.lastIndexOf('"') : undefined);
  return body.replace(/\\([0-7]{3}|.)/g, (_, code: string) =>
    code.length === 3 ? String.fromCharCode(Number.parseInt(code, 8)) : code === 't' ? '\t' : code,
  );
}

/** The path with its leading components stripped (`-pN`, else 1 as git does) and as the patch names it. */
function strippedForms(path: string, strip: number | undefined): string[] {
  const parts = path.split('/').filter((part) => part !== '');
  const counts = strip !== undefined && Number.isInteger(strip) ? [strip] : [1, 0];
  return counts.map((count) => parts.slice(count).join('/')).filter((form) => form !== '');
}
