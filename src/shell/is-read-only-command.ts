import { analyzeCommand } from './analyze.ts';
import { maxCommandLength } from './types.ts';

/**
 * True only when every subcommand of the line (substitution bodies included) is read-only.
 * Fail-closed: false when the parser is not loaded, the line is too complex or too long.
 * `cd` counts as read-only wherever it goes; whether the directory is acceptable is the engine's call.
 */
export function isReadOnlyCommand(command: string, options: { cwd?: string } = {}): boolean {
  if (command.length > maxCommandLength) return false;
  const analysis = analyzeCommand(command, { cwd: options.cwd ?? '/' });
  if (analysis.kind !== 'analyzed' || analysis.tooManySubcommands) return false;
  return analysis.subcommands.length > 0 && analysis.subcommands.every((subcommand) => subcommand.readOnly);
}
