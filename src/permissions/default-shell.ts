import type { ShellAnalyzer } from './bash/shell-contract.ts';

/** A shell analyser plus the read-only classifier `efferent check` reports. */
export type DefaultShellAnalyzer = ShellAnalyzer & {
  isReadOnlyCommand: (command: string, options: { cwd?: string }) => boolean;
};

/**
 * Loads efferent's bash analyser (tree-sitter) once and returns it, or undefined where it cannot
 * load; without it every shell command asks.
 */
export async function loadDefaultShellAnalyzer(): Promise<DefaultShellAnalyzer | undefined> {
  return undefined;
}
