import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { quoteWord } from './command-text.ts';

/**
 * Commands that may run inside another command's arguments, for deny and ask rules only. Runners the
 * analyser does not unwrap (`strace rm x`, `chroot / rm x`, `find . -exec rm {} +`, `npx rm x`,
 * `su -c 'rm x'`, `git -c alias.x='!rm y' x`) would otherwise dodge a `Bash(rm *)` deny, in
 * bypassPermissions too. Every suffix of the words that starts at a plausible program name is a
 * spelling; so is every suffix of the tokens of a word holding command text. A match can only make
 * the engine ask, so reading too much here costs a prompt, never a bypass.
 */

/** Programs whose first argument is a subcommand of their own (`git rm`, `docker rm`), not a program. */
const subcommandClis = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'gh',
  'apt',
  'apt-get',
  'brew',
  'pip',
  'pip3',
  'uv',
  'poetry',
  'make',
  'systemctl',
  'terraform',
  'dotnet',
  'rustup',
  'conda',
  'gcloud',
  'aws',
  'az',
]);

const systemBinary = /^(?:\/proc\/[^/]+\/root)?(?:\/+\.?)*(?:usr\/+)?(?:local\/+)?s?bin\/+[^/]+$/;

const programWord = /^[A-Za-z0-9_.+/~\\=-]+$/;

/**
 * A word holds command text when it has blanks or operators (`su -c 'rm x'`), an `=` that may end an
 * option or setting name (`--compress-program=rm`, `ProxyCommand=rm x`, `core.pager=rm`), or is a
 * short option with a value attached (`env -S'rm x'`).
 */
const commandTextWord = /[\s!;&|=]|^-[A-Za-z0-9]{2}/;

/** What a command in one word is split at: blanks, operators, quotes, and `=` after a name. */
const commandTextSeparators = /[\s;&|()`'"=]+/;

/**
 * The words of a command held in one word, read two ways: split at quotes, and with the shell's
 * quoting removed first (`r""m -rf x` runs `rm`, `\rm` runs `rm`).
 */
function commandTextTokenings(word: string): string[][] {
  const text = word.includes('!') ? word.slice(word.indexOf('!') + 1) : word;
  const unquoted = text.replace(/\\(.)/g, '$1').replace(/['"]/g, '');
  const split = (value: string) => value.split(commandTextSeparators).filter((token) => token !== '');
  return unquoted === text ? [split(text)] : [split(text), split(unquoted)];
}

/** A program name and the words after it, as deny and ask rules read them (plain and quoted). */
function addSpelling(
  spellings: Set<string>,
  program: string,
  rest: readonly string[],
  mayMatch: ((program: string) => boolean) | undefined,
): void {
  // A word with a slash is a file argument far more often than a program, unless it names a system
  // binary directory (`/usr/bin/rm`, `/proc/self/root/bin/rm`).
  if (program.includes('/') && !systemBinary.test(program)) return;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (name === '' || (mayMatch !== undefined && !mayMatch(name))) return;
  spellings.add([name, ...rest].join(' '));
  spellings.add([name, ...rest.map(quoteWord)].join(' '));
}

/** Every suffix of `words` from `from` on that starts at a plausible program name. */
function addSuffixes(
  spellings: Set<string>,
  words: readonly string[],
  from: number,
  attached: boolean,
  mayMatch: ((program: string) => boolean) | undefined,
): void {
  for (let index = from; index < words.length; index++) {
    const word = words[index] ?? '';
    const rest = words.slice(index + 1);
    // `-Srm -rf x`: a short option (or a cluster of them) with the command attached as its value.
    if (attached && /^-[A-Za-z0-9]/.test(word)) {
      for (let start = 2; start < word.length; start++) {
        const value = word.slice(start);
        if (programWord.test(value) && !value.startsWith('-')) addSpelling(spellings, value, rest, mayMatch);
      }
    }
    if (word.startsWith('-') || word.includes('=') || !programWord.test(word)) continue;
    addSpelling(spellings, word.replace(/^[\\=]+/, ''), rest, mayMatch);
  }
}

/**
 * Text spellings of the commands this subcommand's arguments may run. With `mayMatch`, only those
 * whose program name (their first word) a rule could match are made.
 */
export function embeddedCommandSpellings(
  subcommand: AnalyzedSubcommandLike,
  mayMatch?: (program: string) => boolean,
): string[] {
  const argv = subcommand.argv;
  const spellings = new Set<string>();
  addSuffixes(spellings, argv, subcommandClis.has(argv[0] ?? '') ? 2 : 1, false, mayMatch);
  // Settings in the environment name commands too (`PAGER='rm x' git -p log`, `GIT_EXTERNAL_DIFF=…`).
  const texts = argv.slice(1).filter((word) => commandTextWord.test(word));
  for (const variable of subcommand.envVars) texts.push(variable.value);
  for (const word of texts)
    for (const tokens of commandTextTokenings(word)) addSuffixes(spellings, tokens, 0, true, mayMatch);
  return [...spellings];
}
