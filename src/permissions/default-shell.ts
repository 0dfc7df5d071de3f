import { analyzeCommand, classifyEnvVar, isReadOnlyCommand, loadShellParser } from '../shell/index.ts';
import type { ShellAnalyzer } from './decide/shell/shell-contract.ts';

/** A shell analyser plus the read-only classifier `efferent check` reports. */
export type DefaultShellAnalyzer = ShellAnalyzer & {
  isReadOnlyCommand: (command: string, options: { cwd?: string }) => boolean;
};

/** efferent's bash analyser (tree-sitter), as the permission engine calls it. */
export const defaultShellAnalyzer: DefaultShellAnalyzer = {
  analyzeCommand,
  classifyEnvVar,
  isReadOnlyCommand,
};

/**
 * Loads the bash parser once and returns the analyser. Until the parser is loaded every command
 * analyses as too complex, so callers must await this before deciding shell commands.
 */
export async function loadDefaultShellAnalyzer(): Promise<DefaultShellAnalyzer> {
  await loadShellParser();
  return defaultShellAnalyzer;
}
