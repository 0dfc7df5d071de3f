/** The agent loop: stream, execute, feed results back, until the model stops. */
export type { AgentDone, AgentEvent, AgentStopReason, UsageTotals } from './agent-events.ts';
export { missingResultText, normalizeMessagesForApi } from './normalize-messages.ts';
export { addUsage, costOf, type ModelPrice, modelPrices, priceOf } from './pricing.ts';
export { type RunAgentOptions, runAgent } from './run-agent.ts';
export { createSession, type Session, type SessionOptions, settingsEnvironment } from './session.ts';
export { type CallDecision, decideCall } from './decide-call.ts';
export { isWorkspaceTrusted, trustStorePath, trustWorkspace } from './workspace-trust.ts';
