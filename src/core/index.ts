/** The contracts every other layer builds on. Imports nothing else from src/. */
export * from './build-tool.ts';
export * from './context.ts';
export {
  chooseDeferredTools,
  type DeferralOptions,
  DeferredTools,
  deferredToolsKey,
  isDeferrable,
  loadedSubset,
  parseToolSearchMode,
  type RequestDeferral,
  type ToolSearchMode,
} from './deferred-tools.ts';
export * from './errors.ts';
export { toAnthropicSchema } from './anthropic-schema.ts';
export { toGeminiSchema } from './gemini-schema.ts';
export {
  createInputValidator,
  formatInputIssues,
  type InputIssue,
  type InputValidator,
} from './input-validator.ts';
export * from './json-schema.ts';
export * from './messages.ts';
export { type OpenAIStrictEmission, toOpenAISchema, toOpenAIStrictSchema } from './openai-schema.ts';
export { isStrictCompatible } from './openai-strict.ts';
export * from './permission-types.ts';
// The functions stay internal (pipeline, agent); the public API pins its names.
export type { PreparedCall, PreparedShellAnalysis, ToolInvocation } from './prepared-call.ts';
// The other protected-path lists are internal: the engine and the sandbox import them from the file.
export { startupFileNames } from './protected-paths.ts';
export * from './read-file-state.ts';
export * from './session-resources.ts';
export type * from './tool.ts';
export type * from './tool-run.ts';
export * from './stream-events.ts';
export {
  type CheckedDirectory,
  type CheckedFile,
  openCheckedDirectory,
  openCheckedForRead,
  recordCheckedPath,
  takeCheckedPath,
} from './checked-path.ts';
export {
  accountHome,
  type CheckedLocation,
  checkedConfigDir,
  checkedManagedSettingsPath,
  checkedUserHome,
  installedManagedSettingsPath,
  locationVariables,
  managedSettingsVariable,
  projectChosenLocation,
} from './environment-locations.ts';
export { isExecutableFile } from './executable-file.ts';
export { relaxedJson, withoutByteOrderMark } from './relaxed-json.ts';
export { isInsideDirectory } from './path-inside.ts';
export {
  liesPhysicallyInside,
  type OwnFileOptions,
  type OwnFileResult,
  readOwnFile,
  readOwnFileSync,
} from './own-file.ts';
