import { analyzeCommand, type CommandAnalysis } from './analyze.ts';
import { maxCommandLength } from './types.ts';

/**
 * True only when every subcommand of the line (substitution bodies included) is read-only.
 * Fail-closed: false when the parser is not loaded, the line is too complex or too long.
 * `cd` counts as read-only wherever it goes; whether the directory is acceptable is the engine's call.
 */
export function isReadOnlyCommand(command: string, options: { cwd?: string } = {}): boolean {
  if (command.length > maxCommandLength) return false;
  return isReadOnlyAnalysis(analyzeCommand(command, { cwd: options.cwd ?? '/' }));
}

/** {@link isReadOnlyCommand}'s answer from an analysis already made (of a line within the length limit). */
export function isReadOnlyAnalysis(analysis: CommandAnalysis): boolean {
  if (analysis.kind !== 'analyzed' || analysis.tooManySubcommands) return false;
  return analysis.subcommands.length > 0 && analysis.subcommands.every((subcommand) => subcommand.readOnly);
}
