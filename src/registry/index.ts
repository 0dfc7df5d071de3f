/** The registry: the single list of built-in tools, the pool the model sees, and schemas per provider. */
export { getAllBaseTools } from './base-tools.ts';
export { type FeatureFlags, featureFlagsFromEnv } from './feature-flags.ts';
export * from './provider-schemas.ts';
export { toRequestTools } from './request-tools.ts';
export * from './tool-pool.ts';
export { ToolSearchTool } from '../tools/tool-search/tool-search.ts';
