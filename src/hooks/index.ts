/** Claude Code compatible hooks: settings-file commands and in-process callbacks. */
export * from './command-hook.ts';
export * from './hook-input.ts';
export * from './hook-output.ts';
export * from './matcher.ts';
export * from './merge-outcome.ts';
export {
  defaultPromptHookTimeoutSeconds,
  type PromptHookHandler,
  type PromptHookProviderSlot,
  promptHookProviderKey,
} from './prompt-hook.ts';
export * from './runner.ts';
export * from './spill-output.ts';
export type * from './types.ts';
export { hookEvents } from './types.ts';
