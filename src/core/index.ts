/** The contracts every other layer builds on. Imports nothing else from src/. */
export * from './build-tool.ts';
export * from './context.ts';
export * from './errors.ts';
export { toGeminiSchema } from './gemini-schema.ts';
export * from './json-schema.ts';
export * from './messages.ts';
export { isStrictCompatible } from './openai-strict.ts';
export * from './permission-types.ts';
// The protected-name lists are imported by path (src/core/protected-paths.ts); only this one is public.
export { startupFileNames } from './protected-paths.ts';
export * from './read-file-state.ts';
export * from './session-resources.ts';
export type * from './tool.ts';
export type * from './tool-run.ts';
export * from './stream-events.ts';
