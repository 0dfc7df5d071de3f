/**
 * Exit codes that are answers, not failures. `grep` exits 1 when nothing matched, `diff` when the
 * files differ: reporting those as errors makes the model think the command broke (and, in a
 * parallel batch, cancels its siblings). The command that decides is the last one of the line, the
 * one whose status the shell returns.
 *
 * | command                         | exit 1 means               | error from |
 * |---------------------------------|----------------------------|------------|
 * | grep, egrep, fgrep, rg, git grep| no matches                 | 2          |
 * | diff, git diff                  | the inputs differ          | 2          |
 * | test, [                         | the condition is false     | 2          |
 * | find                            | some paths were unreadable | 2          |
 */

/** How one exit status should be read. */
export interface ExitInterpretation {
  /** True when the status means the command failed. */
  isError: boolean;
  /** What a non-zero, non-error status means, for the model. */
  meaning?: string;
}

const exitOneMeanings: Record<string, string> = {
  grep: 'No matches found',
  egrep: 'No matches found',
  fgrep: 'No matches found',
  rg: 'No matches found',
  'git grep': 'No matches found',
  diff: 'Files differ',
  'git diff': 'Differences found',
  test: 'Condition is false',
  '[': 'Condition is false',
  find: 'Some directories were inaccessible',
};

/** The key into the table for an argv: `git grep`/`git diff` by subcommand, else the command name. */
export function semanticCommandKey(argv: readonly string[]): string | undefined {
  const name = argv[0]?.split('/').pop();
  if (name === undefined) return undefined;
  if (name === 'git') {
    // Skip global options such as `-C dir` or `--no-pager` to find the subcommand.
    for (let index = 1; index < argv.length; index += 1) {
      const arg = argv[index] as string;
      if (arg === '-C' || arg === '-c') {
        index += 1;
        continue;
      }
      if (arg.startsWith('-')) continue;
      return `git ${arg}`;
    }
    return 'git';
  }
  return name;
}

/** Interprets `exitCode` for the command line's last command (`lastArgv`; undefined if unknown). */
export function interpretExitCode(
  lastArgv: readonly string[] | undefined,
  exitCode: number | null,
): ExitInterpretation {
  if (exitCode === 0) return { isError: false };
  if (exitCode === null) return { isError: true };
  const key = lastArgv ? semanticCommandKey(lastArgv) : undefined;
  const meaning = key !== undefined && exitCode === 1 ? exitOneMeanings[key] : undefined;
  return meaning === undefined ? { isError: true } : { isError: false, meaning };
}
