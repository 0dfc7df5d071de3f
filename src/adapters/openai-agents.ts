import { type JsonSchema, toolInputJsonSchema } from '../core/index.ts';
import { type AdapterOptions, type AdapterSession, adaptedTools } from './adapter-session.ts';
import { type AdaptedResult, CallScheduler } from './call-scheduler.ts';

/** A tool's input schema in the shape OpenAI Agents JS expects for a non-strict function tool. */
export interface OpenAIAgentsParameters {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: true | false;
  [key: string]: unknown;
}

function parametersOf(schema: JsonSchema): OpenAIAgentsParameters {
  const properties = schema['properties'];
  const required = schema['required'];
  return {
    ...schema,
    type: 'object',
    properties:
      properties && typeof properties === 'object'
        ? (properties as Record<string, Record<string, unknown>>)
        : {},
    required: Array.isArray(required) ? required.filter((key): key is string => typeof key === 'string') : [],
    additionalProperties: schema['additionalProperties'] === false ? false : true,
  };
}

/**
 * One part of a multi-part tool result, in OpenAI Agents JS's structured tool output shapes
 * (`ToolOutputText`, `ToolOutputImage` with inline base64 data).
 */
export type OpenAIAgentsToolOutput =
  | { type: 'text'; text: string }
  | { type: 'image'; image: { data: string; mediaType: string } };

/** A result as the model should see it: a string when it is only text, else its parts in order. */
function invocationOutputOf(result: AdaptedResult): string | OpenAIAgentsToolOutput[] {
  if (result.isError || !result.content.some((part) => part.type === 'image')) return result.text;
  return result.content.map(
    (part): OpenAIAgentsToolOutput =>
      part.type === 'text'
        ? { type: 'text', text: part.text }
        : { type: 'image', image: { data: part.source.data, mediaType: part.source.mediaType } },
  );
}

/** One efferent tool as an OpenAI Agents JS `FunctionTool` (the object its `tool({...})` returns). */
export interface OpenAIAgentsTool {
  type: 'function';
  name: string;
  description: string;
  parameters: OpenAIAgentsParameters;
  strict: false;
  invoke(
    runContext: unknown,
    input: string,
    details?: { toolCall?: { callId?: string }; signal?: AbortSignal },
  ): Promise<string | OpenAIAgentsToolOutput[]>;
  needsApproval(runContext: unknown, input: unknown, callId?: string): Promise<boolean>;
  isEnabled(runContext: unknown, agent: unknown): Promise<boolean>;
}

let anonymousCalls = 0;

/**
 * The session's tools for OpenAI Agents JS (`new Agent({ tools })`): every call goes through the
 * session's pipeline and permission engine, with efferent's scheduling (unsafe calls one at a time,
 * safe ones in parallel), its cwd tracking and its per-turn result budget. Results are the text the
 * model reads, or text and image parts when the result holds images; failures are efferent's
 * model-facing error messages.
 */
export async function toOpenAIAgentsTools(
  session: AdapterSession,
  options: AdapterOptions = {},
): Promise<OpenAIAgentsTool[]> {
  const scheduler = new CallScheduler(session);
  const approved = new Set<string>();
  const tools = adaptedTools(session, options);
  return Promise.all(
    tools.map(
      async (tool): Promise<OpenAIAgentsTool> => ({
        type: 'function',
        name: tool.name,
        description: await tool.prompt({ tools, isNonInteractive: session.context.options.isNonInteractive }),
        parameters: parametersOf(toolInputJsonSchema(tool)),
        strict: false,
        async invoke(_runContext, text, details) {
          let input: Record<string, unknown>;
          try {
            const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
            if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
              throw new Error('not an object');
            input = parsed as Record<string, unknown>;
          } catch {
            return `<tool_use_error>The input for ${tool.name} is not a JSON object. Send the arguments as one JSON object matching the tool's schema.</tool_use_error>`;
          }
          const callId = details?.toolCall?.callId ?? `openai_agents_${++anonymousCalls}`;
          const answer = approved.delete(callId) ? { choice: 'allow-once' as const } : undefined;
          const result = await scheduler.run(tool, input, {
            id: callId,
            ...(details?.signal ? { signal: details.signal } : {}),
            ...(answer ? { answer } : {}),
          });
          return invocationOutputOf(result);
        },
        async needsApproval(_runContext, input, callId) {
          if (!options.needsApproval) return false;
          const args =
            typeof input === 'string'
              ? (JSON.parse(input || '{}') as Record<string, unknown>)
              : (input as Record<string, unknown>);
          const ask = (await session.wouldAsk(tool.name, args ?? {})).ask;
          if (ask && callId) approved.add(callId);
          return ask;
        },
        async isEnabled() {
          return true;
        },
      }),
    ),
  );
}
