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

/** Text spellings of the commands this subcommand's arguments may run. */
export function embeddedCommandSpellings(subcommand: AnalyzedSubcommandLike): string[] {
  const argv = subcommand.argv;
  const spellings = new Set<string>();
  const addSuffixes = (words: readonly string[], from: number) => {
    for (let index = from; index < words.length; index++) {
      const word = words[index] ?? '';
      if (word.startsWith('-') || word.includes('=') || !programWord.test(word)) continue;
      const program = word.replace(/^[\\=]+/, '');
      // A word with a slash is a file argument far more often than a program, unless it names a system
      // binary directory (`/usr/bin/rm`, `/proc/self/root/bin/rm`).
      if (program.includes('/') && !systemBinary.test(program)) continue;
      const name = program.slice(program.lastIndexOf('/') + 1);
      if (name === '') continue;
      const rest = words.slice(index + 1);
      spellings.add([name, ...rest].join(' '));
      spellings.add([name, ...rest.map(quoteWord)].join(' '));
    }
  };
  addSuffixes(argv, subcommandClis.has(argv[0] ?? '') ? 2 : 1);
  for (const word of argv.slice(1)) {
    if (!/[\s!;&|]/.test(word)) continue;
    const text = word.includes('!') ? word.slice(word.indexOf('!') + 1) : word;
    const tokens = text.split(/[\s;&|()`'"]+/).filter((token) => token !== '');
    addSuffixes(tokens, 0);
  }
  return [...spellings];
}
