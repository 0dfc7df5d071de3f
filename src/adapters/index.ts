/** Efferent's tools inside other agent frameworks, with efferent's pipeline, scheduling and budgets. */
export type { AdapterOptions, AdapterSession } from './adapter-session.ts';
export {
  type AiSdkContentPart,
  type AiSdkModelOutput,
  type AiSdkSchema,
  type AiSdkTool,
  toAiSdkTools,
} from './ai-sdk.ts';
export type { AdaptedResult } from './call-scheduler.ts';
export {
  type OpenAIAgentsParameters,
  type OpenAIAgentsTool,
  type OpenAIAgentsToolOutput,
  toOpenAIAgentsTools,
} from './openai-agents.ts';
