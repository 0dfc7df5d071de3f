/** Telemetry for tool calls: a tiny interface over `@opentelemetry/api` plus an in-memory sink. */
export * from './telemetry.ts';
