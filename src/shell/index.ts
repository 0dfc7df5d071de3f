/** Shell analysis on a real bash AST: the layer the permission engine and the Bash tool build on. */
export {
  type AnalyzedSubcommand,
  type AnalyzeOptions,
  analyzeCommand,
  type CommandAnalysis,
} from './analyze.ts';
export { classifyEnvVar, type EnvVarClass, isHarmlessEnvAssignment } from './env-vars.ts';
export { formatArgv, quoteWord } from './format-argv.ts';
export { isReadOnlyAnalysis, isReadOnlyCommand } from './is-read-only-command.ts';
export { isShellParserLoaded, loadShellParser, shellParseCount } from './parser.ts';
export {
  adoptPreparedAnalysis,
  isPreparedShellCommand,
  type PreparedShellCommand,
  prepareShellCommand,
} from './prepared.ts';
export { parseForSecurity } from './parse-for-security.ts';
export { isReadOnlySimpleCommand, type ReadOnlyInput } from './read-only/classify.ts';
export { type IndirectRead, indirectReadsOf } from './read-only/indirect-reads.ts';
export { attachedFileValues } from './read-only/option-file-values.ts';
export { sedScriptReads } from './read-only/sed.ts';
export {
  type ArgKind,
  type CommandOrigin,
  commandSubstitutionPlaceholder,
  type EnvVar,
  maxCommandLength,
  maxSubcommandsForSecurityCheck,
  processSubstitutionPlaceholder,
  type Redirect,
  type ShellParseResult,
  type SimpleCommand,
  trackedVariablePlaceholder,
} from './types.ts';
export {
  type UnwrapDetails,
  unwrapCommand,
  unwrapCommandDetailed,
  userChangingWrappers,
  wrapperNames,
} from './wrappers.ts';
export { lessValueOverrun } from './read-only/custom-commands.ts';
export { writeTargetsKnown } from './write-targets.ts';
