/** The permission engine: settings, rules, matchers, modes, the resolution chain and explanations. */
export type {
  AnalyzedSubcommandLike,
  CommandAnalysisLike,
  EnvVarClass,
  ShellAnalyzer,
} from './decide/shell/shell-contract.ts';
export { evaluateShellCommand, maxSuggestedRules } from './decide/shell/bash-permissions.ts';
export { type CheckCase, type CheckOptions, type CheckResult, checkPermissionCase } from './check-case.ts';
export {
  type AutoModeClassifier,
  type ClassifierRequest,
  type ClassifierStage,
  type ClassifierVerdict,
  createTwoStageClassifier,
  maxConsecutiveClassifierBlocks,
  maxTotalClassifierBlocks,
} from './classifier/classifier-types.ts';
export {
  type CompletionProvider,
  createModelClassifier,
  parseClassifierAnswer,
} from './classifier/model-classifier.ts';
export { createRuleBasedClassifier } from './classifier/rule-based-classifier.ts';
export {
  type DefaultShellAnalyzer,
  defaultShellAnalyzer,
  loadDefaultShellAnalyzer,
} from './default-shell.ts';
export {
  type GitInspection,
  type GitInspector,
  type GitInvocation,
  inspectGitInvocation,
} from './git-config/inspect-git.ts';
export { type KnownToolDeclaration, knownToolDeclarations } from './known-tools.ts';
export {
  type CanonicalPath,
  canonicalizePath,
  fsRealpath,
  isInsideDirectory,
  lexicalRealpath,
  type RealpathFn,
} from './paths/canonical-path.ts';
export { isCriticalRemovalPath, protectedPathReason } from './paths/protected-paths.ts';
export { createReadDenyCheck, type ReadDenyCheck, type ReadDenyCheckOptions } from './read-deny-check.ts';
export {
  type PermissionRequestHookResult,
  type PermissionResolverOptions,
  createPermissionResolver,
} from './approve/create-resolver.ts';
export {
  type Evaluation,
  type EvaluationRequest,
  evaluatePermission,
} from './decide/evaluate-permission.ts';
export { createWorkspace, type Workspace } from './decide/workspace.ts';
export {
  evaluateRuleCondition,
  matchesRuleCondition,
  type RuleConditionCall,
  type RuleConditionOptions,
  type RuleConditionResult,
} from './rule-condition.ts';
export { buildRules, type RuleOrigin } from './rules/build-rules.ts';
export { compileDomainPattern, domainMatches, hostOfUrl } from './rules/domain-pattern.ts';
export { escapeRuleContent, parseRule, printRule, unescapeRuleContent } from './rules/parse-rule.ts';
export { anchorPathPattern, pathPatternMatches } from './rules/path-pattern.ts';
export type { PermissionRule, RuleSet, RuleValue } from './rules/rule-types.ts';
export { compileShellPattern, matchesShellPattern } from './rules/shell-pattern.ts';
export { canonicalToolName, legacyToolAliases, toolNameMatches } from './rules/tool-names.ts';
export {
  type CliSettingsInput,
  defaultManagedSettingsPath,
  type LoadSettingsOptions,
  loadSettings,
  managedSettingsEnvVar,
  managedSettingsPathFrom,
} from './settings/load-settings.ts';
export {
  type ConfigurationEnv,
  configurationEnvironment,
  positiveIntegerVariable,
} from './settings/configuration-env.ts';
export { localSettingsPath, maxRulesPerAnswer, persistAllowRules } from './settings/persist-rules.ts';
export {
  parseSettingsText,
  readSettingsFile,
  readSettingsFileLenient,
} from './settings/read-settings-file.ts';
export {
  formatSettingsWarning,
  type LenientSettings,
  lenientSettings,
  parseSettingsLenient,
  type SettingsWarning,
} from './settings/lenient-settings.ts';
export { relaxedJson } from '../core/index.ts';
export { type UnusedSettingsKey, unusedSettingsKeys } from './settings/settings-keys.ts';
export type { HooksConfig, SettingsFile } from './settings/settings-schema.ts';
export type { HooksLayer, LoadedSettings } from './settings/settings-types.ts';
