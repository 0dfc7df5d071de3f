import type { ShellParseResult, SimpleCommand } from './types.ts';
import { type WalkedCommand, type WalkResult, walkCommandLine } from './walker.ts';

function toSimpleCommand(command: WalkedCommand): SimpleCommand {
  return {
    argv: command.argv,
    envVars: command.envVars,
    redirects: command.redirects,
    text: command.text,
    argKinds: command.argKinds,
    origin: command.origin,
  };
}

/**
 * Splits a command line into simple commands using a real bash grammar (tree-sitter-bash).
 * Substitution, `bash -c` and `eval` bodies are analysed recursively and listed as commands of
 * their own. Anything outside the walker's allowlist of syntax comes back as `too-complex`, which
 * callers must treat as "ask". Synchronous once {@link loadShellParser} has finished; before that
 * it returns `parse-unavailable`.
 *
 * Expansions: `$NAME` and `${NAME}` are allowed in arguments (kept as text, marked `dynamic`);
 * a variable assigned earlier on the same line becomes `__TRACKED_VAR__`. Computed command names,
 * `${…}` with operators, `$((…))`, `$'…'`, `$"…"`, brace expansion, `$IFS`, zsh `=cmd` and
 * `~[…]` make the whole line too-complex.
 */
export function parseForSecurity(command: string): ShellParseResult {
  return parseResultOfWalk(walkCommandLine(command));
}

/**
 * {@link parseForSecurity}'s result from a walk already made. Where the walk started (cwd, home) only
 * changes the directories it tracks, which this result does not carry, so any walk of the line will do.
 */
export function parseResultOfWalk(result: WalkResult): ShellParseResult {
  if (result.kind !== 'simple') return result;
  return { kind: 'simple', commands: result.commands.map(toSimpleCommand) };
}
