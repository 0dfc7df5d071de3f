import { type JsonSchema, toolInputJsonSchema } from '../core/index.ts';
import { type AdapterOptions, type AdapterSession, adaptedTools } from './adapter-session.ts';
import { type AdaptedResult, CallScheduler } from './call-scheduler.ts';

/**
 * A tool's input schema as a Standard Schema with its JSON Schema attached, which the AI SDK
 * accepts as `inputSchema` (no import of `ai` needed). It accepts every value: efferent's pipeline
 * validates inputs itself, with error messages written for the model.
 */
export interface AiSdkSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'efferent';
    readonly validate: (value: unknown) => { value: Record<string, unknown> };
    readonly jsonSchema: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/** One part of a multi-part tool result, as the AI SDK's `toModelOutput` content parts. */
export type AiSdkContentPart =
  | { type: 'text'; text: string }
  | { type: 'image-data'; data: string; mediaType: string };

/**
 * What the AI SDK reads from a tool result's `toModelOutput`: text, efferent's error text, or (when
 * the result holds images) its parts in order.
 */
export type AiSdkModelOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | { type: 'content'; value: AiSdkContentPart[] };

/** A result as the model should see it: images as image parts, errors as error text. */
function modelOutputOf(output: AdaptedResult): AiSdkModelOutput {
  if (output.isError) return { type: 'error-text', value: output.text };
  if (!output.content.some((part) => part.type === 'image')) return { type: 'text', value: output.text };
  return {
    type: 'content',
    value: output.content.map(
      (part): AiSdkContentPart =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'image-data', data: part.source.data, mediaType: part.source.mediaType },
    ),
  };
}

/** One efferent tool as an AI SDK `Tool` (structurally the object `tool({...})` returns). */
export interface AiSdkTool {
  description: string;
  inputSchema: AiSdkSchema;
  execute(
    input: Record<string, unknown>,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ): Promise<AdaptedResult>;
  toModelOutput(options: { output: AdaptedResult }): AiSdkModelOutput;
  needsApproval?: (input: Record<string, unknown>, options: { toolCallId: string }) => Promise<boolean>;
}

function aiSdkSchema(schema: JsonSchema): AiSdkSchema {
  return {
    '~standard': {
      version: 1,
      vendor: 'efferent',
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

/**
 * The session's tools for the Vercel AI SDK (`generateText`, `streamText`, agents): every call goes
 * through the session's pipeline and permission engine, with efferent's scheduling (unsafe calls one
 * at a time, safe ones in parallel), its cwd tracking and its per-turn result budget.
 */
export async function toAiSdkTools(
  session: AdapterSession,
  options: AdapterOptions = {},
): Promise<Record<string, AiSdkTool>> {
  const scheduler = new CallScheduler(session);
  const approved = new Set<string>();
  const tools = adaptedTools(session, options);
  const entries = await Promise.all(
    tools.map(async (tool): Promise<[string, AiSdkTool]> => {
      const adapted: AiSdkTool = {
        description: await tool.prompt({ tools, isNonInteractive: session.context.options.isNonInteractive }),
        inputSchema: aiSdkSchema(toolInputJsonSchema(tool)),
        execute: (input, { toolCallId, abortSignal }) => {
          // The framework asked its user already; efferent's own prompt for this call says yes once.
          const answer = approved.delete(toolCallId) ? { choice: 'allow-once' as const } : undefined;
          return scheduler.run(tool, input, {
            id: toolCallId,
            ...(abortSignal ? { signal: abortSignal } : {}),
            ...(answer ? { answer } : {}),
          });
        },
        toModelOutput: ({ output }) => modelOutputOf(output),
      };
      if (options.needsApproval) {
        adapted.needsApproval = async (input, { toolCallId }) => {
          const ask = (await session.wouldAsk(tool.name, input)).ask;
          if (ask) approved.add(toolCallId);
          return ask;
        };
      }
      return [tool.name, adapted];
    }),
  );
  return Object.fromEntries(entries);
}
