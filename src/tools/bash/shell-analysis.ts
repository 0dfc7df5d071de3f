import {
  isReadOnlyCommand,
  isShellParserLoaded,
  loadShellParser,
  type PreparedShellCommand,
  parseForSecurity,
  type ShellParseResult,
  type SimpleCommand,
} from '../../shell/index.ts';

/**
 * The Bash tool's questions to the shell analyser (src/shell), each failing closed: a command the
 * analyser cannot read is not read-only, is not simulated, and is not moved to the background.
 */

/** Loads the tree-sitter grammar; later calls are free. Failures leave every answer fail-closed. */
export async function prepareShellAnalysis(): Promise<void> {
  await loadShellParser().catch(() => {});
}

/**
 * Loading starts at the first question, not when the tool is made (importing efferent must not load
 * the grammar); until it is loaded every answer fails closed. Sessions await the load when they start.
 */
function startLoadingParser(): void {
  if (!isShellParserLoaded()) void prepareShellAnalysis();
}

/** True only when the analyser is sure the command changes nothing. */
export function isReadOnlyBash(command: string, cwd?: string): boolean {
  startLoadingParser();
  try {
    return isReadOnlyCommand(command, cwd === undefined ? {} : { cwd });
  } catch {
    return false;
  }
}

/** True only when the analyser is sure the prepared command changes nothing. */
export function isReadOnlyPrepared(prepared: PreparedShellCommand): boolean {
  startLoadingParser();
  try {
    return prepared.isReadOnly();
  } catch {
    return false;
  }
}

/** The analyser's parse of a command line; from its prepared analysis when there is one. */
export async function parseCommandLine(
  command: string,
  prepared?: PreparedShellCommand,
): Promise<ShellParseResult> {
  await prepareShellAnalysis();
  try {
    return prepared?.command === command ? prepared.parse() : parseForSecurity(command);
  } catch {
    return { kind: 'parse-unavailable' };
  }
}

/** The commands written at the top level (not inside substitutions or `bash -c` bodies). */
function topLevelCommands(parse: ShellParseResult): SimpleCommand[] {
  if (parse.kind !== 'simple') return [];
  return parse.commands.filter((command) => command.origin === undefined || command.origin === 'top');
}

/**
 * The argv of the last top-level command: the one whose exit status the shell returns. Lines the
 * analyser declines (`[ -f x ] && …`) fall back to a plain split of the last segment; this only
 * labels an exit status for the model and never decides anything about safety.
 */
export function lastCommandArgv(parse: ShellParseResult, command: string): string[] | undefined {
  if (parse.kind === 'simple') return topLevelCommands(parse).at(-1)?.argv;
  const segments = splitOutsideQuotes(command);
  const words = (segments.at(-1) ?? '')
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) words.shift();
  return words.length > 0 ? words : undefined;
}

/** Splits at `;`, `&`, `|` and newlines that are not inside quotes. */
function splitOutsideQuotes(command: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    if (quote) {
      if (char === '\\' && quote === '"') {
        current += char + (command[index + 1] ?? '');
        index += 1;
        continue;
      }
      if (char === quote) quote = undefined;
      current += char;
    } else if (char === '\\') {
      current += char + (command[index + 1] ?? '');
      index += 1;
    } else if (char === "'" || char === '"') {
      quote = char;
      current += char;
    } else if (';&|\n'.includes(char)) {
      if (current.trim() !== '') segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim() !== '') segments.push(current);
  return segments;
}

/** The only command of a line that is exactly one plain command with literal words, or undefined. */
export function soleLiteralCommand(parse: ShellParseResult): SimpleCommand | undefined {
  if (parse.kind !== 'simple' || parse.commands.length !== 1) return undefined;
  const command = parse.commands[0] as SimpleCommand;
  if (command.envVars.length > 0 || command.redirects.length > 0) return undefined;
  if (!command.argKinds || command.argKinds.some((kind) => kind !== 'literal')) return undefined;
  return command;
}

/**
 * Whether a command that ran past its timeout may keep running in the background. Not for `sleep`
 * (waiting is the point), not for anything mentioning git (a stuck git holds the index lock), and not
 * for lines the analyser could not read.
 */
export function mayMoveToBackground(command: string, parse: ShellParseResult): boolean {
  if (parse.kind !== 'simple') return false;
  if (/\bgit\b/.test(command)) return false;
  const first = topLevelCommands(parse)[0]?.argv[0];
  return first !== 'sleep';
}
