/** The registry: the single list of built-in tools, the pool the model sees, and schemas per provider. */
export { getAllBaseTools } from './base-tools.ts';
export { type FeatureFlags, featureFlagsFromEnv } from './feature-flags.ts';
export * from './provider-schemas.ts';
export * from './tool-pool.ts';
