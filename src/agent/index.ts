/** The agent loop: stream, execute, feed results back, until the model stops. */
export type { AgentDone, AgentEvent, AgentStopReason, RetryEvent, UsageTotals } from './agent-events.ts';
export { missingResultText, normalizeMessagesForApi } from './normalize-messages.ts';
export { addUsage, costOf, type ModelPrice, modelPrices, priceOf } from './pricing.ts';
export { type RunAgentOptions, runAgent } from './run-agent.ts';
export type {
  AgentRun,
  PendingApproval,
  RunEvent,
  RunResult,
  RunStreamEvent,
  RunToolEvent,
  SessionRunOptions,
} from './run-events.ts';
export {
  configurationLocations,
  createSession,
  type Session,
  type SessionConfiguration,
  type SessionOptions,
  sessionConfiguration,
  settingsEnvironment,
} from './session.ts';
export { type CallDecision, decideCall } from './decide-call.ts';
export { modelessPromptHookNotices } from './lifecycle-hooks.ts';
export {
  type AskLaterAnswer,
  askLater,
  type SessionAskAnswer,
  type SessionAskUser,
  type ToolChoice,
} from './session-setup.ts';
export type { WouldAsk } from './would-ask.ts';
export { isWorkspaceTrusted, trustStorePath, trustWorkspace } from './workspace-trust.ts';
