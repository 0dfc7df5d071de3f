import { type CanonicalPath, isUnresolvable } from '../../paths/canonical-path.ts';
import type { IndexedCheckContext } from './check-context.ts';
import { findStartingPoints } from './find-actions.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { resolveFrom } from './subcommand-checks.ts';

/**
 * Commands that change files they do not name: with no path operand, they act on the directory they
 * run in (`find -name '*.ts' -delete`, `ruff format`, `eslint --fix`, `git clean -fdx`) or on the
 * whole working tree (`git reset --hard`, `git stash -u`, `cargo fmt`). Written with `.` they name
 * the directory and the write rules judge it; written without it they named nothing, so an
 * `Edit(./src/**)` deny rule was escaped by leaving the operand out. {@link implicitWriteTargets}
 * gives the directories such a command changes without naming them, so the same rules judge the
 * omitted operand as they judge the spelled one.
 *
 * - `cwd`: the directory the command runs in;
 * - `tree`: that directory and the project root above it (git and cargo act on the whole work tree
 *   or package, which may start above the directory they run in).
 */
type ImplicitScope = 'cwd' | 'tree';

/** A tool that changes the files under its directory when given no operand, in some modes. */
interface ImplicitTool {
  /** Subcommands that write (`format`), or undefined when the program itself does. */
  subcommands?: ReadonlySet<string>;
  /** Whether these words (after the program and subcommand) make it write. */
  writes: (args: readonly string[]) => boolean;
  /** Options known to take no value, so the word after one may be an operand. */
  flags: ReadonlySet<string>;
  scope: ImplicitScope;
}

const has = (args: readonly string[], ...names: string[]): boolean =>
  args.some(
    (arg) => names.includes(arg) || names.some((name) => name.startsWith('--') && arg.startsWith(`${name}=`)),
  );
const always = (): boolean => true;

/** Formatters and fixers whose default operand is the working directory (or their project). */
const implicitTools: Readonly<Record<string, ImplicitTool>> = {
  ruff: {
    subcommands: new Set(['format', 'check']),
    // `ruff format` writes unless it only checks; `ruff check` writes with --fix.
    writes: (args) =>
      args[0] === 'format' ? !has(args, '--check', '--diff') : has(args, '--fix', '--unsafe-fixes'),
    flags: new Set(['--fix', '--unsafe-fixes', '--no-cache', '--preview', '-q', '--quiet', '-s', '--silent']),
    scope: 'cwd',
  },
  eslint: {
    writes: (args) => has(args, '--fix'),
    flags: new Set(['--fix', '--cache', '--quiet', '--no-eslintrc', '--no-config-lookup']),
    scope: 'cwd',
  },
  biome: {
    subcommands: new Set(['check', 'format', 'lint']),
    writes: (args) => has(args, '--write', '--apply', '--apply-unsafe', '--fix', '--unsafe'),
    flags: new Set(['--write', '--apply', '--apply-unsafe', '--fix', '--unsafe', '--staged', '--changed']),
    scope: 'cwd',
  },
  deno: {
    subcommands: new Set(['fmt', 'lint']),
    writes: (args) => (args[0] === 'fmt' ? !has(args, '--check') : has(args, '--fix')),
    flags: new Set(['--fix', '-q', '--quiet', '--unstable']),
    scope: 'cwd',
  },
  cargo: {
    subcommands: new Set(['fmt', 'fix', 'clippy']),
    writes: (args) => (args[0] === 'clippy' ? has(args, '--fix') : !has(args, '--check')),
    flags: new Set(['--all', '--fix', '--allow-dirty', '--allow-staged', '--allow-no-vcs', '--workspace']),
    scope: 'tree',
  },
  go: { subcommands: new Set(['fmt']), writes: always, flags: new Set(['-n', '-x', '-mod']), scope: 'cwd' },
  terraform: {
    subcommands: new Set(['fmt']),
    writes: (args) => !has(args, '-check', '--check'),
    flags: new Set(['-recursive', '-diff', '-list=false']),
    scope: 'cwd',
  },
  tofu: {
    subcommands: new Set(['fmt']),
    writes: (args) => !has(args, '-check', '--check'),
    flags: new Set(['-recursive', '-diff', '-list=false']),
    scope: 'cwd',
  },
  rubocop: {
    writes: (args) =>
      has(
        args,
        '--autocorrect',
        '--auto-correct',
        '--autocorrect-all',
        '--auto-correct-all',
        '--fix-layout',
      ) || args.some((arg) => /^-[A-Za-z]*[aAx]/.test(arg) && !arg.startsWith('--')),
    flags: new Set(['-a', '-A', '-x', '--autocorrect', '--autocorrect-all', '--fix-layout', '--parallel']),
    scope: 'cwd',
  },
  standardrb: { writes: (args) => has(args, '--fix'), flags: new Set(['--fix']), scope: 'cwd' },
  standard: { writes: (args) => has(args, '--fix'), flags: new Set(['--fix']), scope: 'cwd' },
  dprint: { subcommands: new Set(['fmt']), writes: always, flags: new Set(['--staged']), scope: 'cwd' },
  ktlint: {
    writes: (args) => has(args, '-F', '--format'),
    flags: new Set(['-F', '--format', '--relative']),
    scope: 'cwd',
  },
  swiftlint: {
    writes: (args) => args[0] === 'autocorrect' || has(args, '--fix', '--autocorrect'),
    flags: new Set(['--fix', '--autocorrect', '--quiet']),
    scope: 'cwd',
  },
  mix: {
    subcommands: new Set(['format']),
    writes: (args) => !has(args, '--check-formatted'),
    flags: new Set(),
    scope: 'tree',
  },
  dotnet: {
    subcommands: new Set(['format']),
    writes: (args) => !has(args, '--verify-no-changes'),
    flags: new Set(['--no-restore']),
    scope: 'tree',
  },
};

/** Launchers that run a tool by name with no options of their own before it (`npx eslint --fix`). */
const launcherPrefixes: ReadonlyArray<readonly string[]> = [
  ['npx'],
  ['bunx'],
  ['pnpx'],
  ['pnpm', 'exec'],
  ['pnpm', 'dlx'],
  ['yarn', 'exec'],
  ['yarn', 'dlx'],
  ['bun', 'x'],
  ['uv', 'run'],
  ['poetry', 'run'],
  ['pipx', 'run'],
];

function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** The words past a launcher (`npx -y eslint --fix` → `eslint --fix`). */
function withoutLauncher(argv: readonly string[]): readonly string[] {
  const first = baseName(argv[0] ?? '');
  for (const prefix of launcherPrefixes) {
    if (prefix[0] !== first || !prefix.every((word, index) => index === 0 || argv[index] === word)) continue;
    let index = prefix.length;
    while (index < argv.length && /^(?:-y|--yes|--no-install|-q|--quiet|--offline)$/.test(argv[index] ?? ''))
      index++;
    return argv.slice(index);
  }
  return argv;
}

/**
 * Whether the words hold an operand: a word after `--`, or a word that is not an option and does not
 * follow an option that may take it as its value (only options known to take none let it through).
 */
function hasOperand(
  args: readonly string[],
  flags: ReadonlySet<string> | ((word: string) => boolean),
): boolean {
  const isFlag = typeof flags === 'function' ? flags : (word: string) => flags.has(word);
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') return index + 1 < args.length;
    if (word.startsWith('-') && word.length > 1) continue;
    const previous = index === 0 ? undefined : args[index - 1];
    if (
      previous === undefined ||
      !previous.startsWith('-') ||
      previous.includes('=') ||
      previous === '-' ||
      isFlag(previous)
    )
      return true;
  }
  return false;
}

/** git global options that take the next word as their value. */
const gitValuedGlobals = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
]);

/** What a git call changes beyond the paths it names. */
function gitScope(args: readonly string[]): ImplicitScope | undefined {
  let index = 0;
  while (index < args.length && (args[index] ?? '').startsWith('-')) {
    if (gitValuedGlobals.has(args[index] ?? '')) index++;
    index++;
  }
  const subcommand = args[index];
  const rest = args.slice(index + 1);
  const pathspec = (): boolean => hasOperand(rest, gitFlags);
  switch (subcommand) {
    // Removes untracked (with -x ignored) files under the directory it runs in.
    case 'clean':
      return has(rest, '-n', '--dry-run') || rest.some((arg) => /^-[a-z]*n/.test(arg)) || pathspec()
        ? undefined
        : 'cwd';
    // Discards changes to tracked files in the whole work tree.
    case 'reset':
      return has(rest, '--hard', '--merge', '--keep') ? 'tree' : undefined;
    // Saves and removes changes (with -u untracked files), or writes saved ones back.
    case 'stash': {
      const action = rest.find((arg) => !arg.startsWith('-'));
      if (rest.includes('--')) return undefined;
      return action === undefined || ['push', 'save', 'pop', 'apply', 'branch'].includes(action)
        ? 'tree'
        : undefined;
    }
    // A forced switch throws away local changes anywhere in the tree.
    case 'checkout':
    case 'switch':
      return !rest.includes('--') &&
        (has(rest, '--force', '--discard-changes') ||
          rest.some((arg) => /^-[A-Za-z]*f/.test(arg) && !arg.startsWith('--')))
        ? 'tree'
        : undefined;
    default:
      return undefined;
  }
}

/** git clean options that take no value: all but `-e PATTERN` / `--exclude PATTERN`. */
const gitFlags = (word: string): boolean => !/^-[A-Za-z]*e$/.test(word) && word !== '--exclude';

/** The scope a command changes without naming it, or undefined when it names what it changes. */
export function implicitWriteScope(argv: readonly string[]): ImplicitScope | undefined {
  const words = withoutLauncher(argv);
  const program = baseName(words[0] ?? '');
  const args = words.slice(1);
  if (program === 'find') return findStartingPoints(args).starts.length > 0 ? undefined : 'cwd';
  if (program === 'git') return gitScope(args);
  const tool = Object.hasOwn(implicitTools, program) ? implicitTools[program] : undefined;
  if (tool === undefined) return undefined;
  let rest = args;
  if (tool.subcommands) {
    const at = args.findIndex((arg) => !arg.startsWith('-'));
    if (at === -1 || !tool.subcommands.has(args[at] ?? '')) return undefined;
    rest = args.slice(at);
  }
  if (!tool.writes(rest)) return undefined;
  return hasOperand(tool.subcommands ? rest.slice(1) : rest, tool.flags) ? undefined : tool.scope;
}

/**
 * The paths a write rule judges for a command that is not read-only: those its words name, and the
 * directories it changes without naming them. Costs nothing when no such rule exists.
 */
export function writeJudgedPaths(
  paths: readonly CanonicalPath[],
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
  rulesPresent: boolean,
): readonly CanonicalPath[] {
  if (!rulesPresent) return paths;
  const scope = implicitWriteScope(subcommand.argv);
  if (scope === undefined) return paths;
  const extra: CanonicalPath[] = [];
  const here = resolveFrom('.', subcommand, context.workspace);
  if (!isUnresolvable(here)) extra.push(here);
  if (scope === 'tree' || isUnresolvable(here)) {
    const root = resolveFrom(context.workspace.projectRoot, subcommand, context.workspace);
    if (!isUnresolvable(root)) extra.push(root);
  }
  return extra.length === 0 ? paths : [...paths, ...extra];
}
