import type {
  AssistantMessage,
  Message,
  StopReason,
  StreamEvent,
  TokenUsage,
  ToolResultBlock,
  ToolUseContext,
} from '../core/index.ts';
import { errorMessage } from '../core/index.ts';
import { AssistantMessageBuilder } from './assistant-message-builder.ts';
import { EventQueue } from './event-queue.ts';
import { readStream } from './read-stream.ts';
import type { ExecutorEvent } from './executor-events.ts';
import { StreamingToolExecutor, type StreamingToolExecutorOptions } from './streaming-tool-executor.ts';

/** How one model turn ended, with everything the next request needs. */
export interface TurnOutcome {
  assistantMessage: AssistantMessage;
  /** One result per tool_use of the assistant message, in call order. */
  toolResults: ToolResultBlock[];
  /** Messages tools added after their results (hook context, subagent transcripts). */
  newMessages: Message[];
  stopReason: StopReason;
  usage: TokenUsage;
  /** The provider's error, when the stream failed. */
  errorMessage?: string;
  /** Set when a hook asked the loop to stop after a tool result. */
  hookStopReason?: string;
  /** The context after the tools' context modifiers. */
  context: ToolUseContext;
}

/** Everything a streamed turn reports: the model's events, the tools' events, and the outcome last. */
export type TurnEvent =
  | { type: 'stream'; event: StreamEvent; at: number }
  | ExecutorEvent
  | { type: 'turn_end'; outcome: TurnOutcome; at: number };

/**
 * Streams one model turn and runs its tool calls through a {@link StreamingToolExecutor} as the
 * blocks complete. Yields model events and tool events interleaved as they happen, then `turn_end`.
 * Nothing is left running when it returns, also when the consumer stops reading early: calls then
 * follow their interrupt behaviour ('cancel' calls are aborted, 'block' calls finish first) and the
 * model stream is asked to close. An interrupt (the context's abort signal) ends the reading at once,
 * even when the provider is slow to honour it.
 */
export async function* runStreamingTurn(
  stream: AsyncIterable<StreamEvent>,
  options: StreamingToolExecutorOptions,
): AsyncGenerator<TurnEvent, void> {
  const builder = new AssistantMessageBuilder();
  const merged = new EventQueue<TurnEvent>();
  const now = options.context.run.now;
  const results: ExecutorEvent[] = [];
  // Tool events join the stream events synchronously, so their order is the order things happened.
  const executor = new StreamingToolExecutor({
    ...options,
    onEvent: (event) => {
      if (event.type === 'tool_result') results.push(event);
      merged.push(event);
      options.onEvent?.(event);
    },
  });

  // Aborted when the consumer stops reading: the stream is let go and nothing new starts.
  const abandoned = new AbortController();
  const turnSignal = options.context.run.abortController.signal;
  const pumpStream = async (): Promise<void> => {
    try {
      const end = await readStream(stream, [turnSignal, abandoned.signal], (event) => {
        builder.add(event);
        merged.push({ type: 'stream', event, at: now() });
        if (event.type === 'tool_use_start') executor.startToolUse(event.id, event.name);
        else if (event.type === 'tool_use_end') {
          const block = { type: 'tool_use' as const, id: event.id, name: event.name, input: event.input };
          executor.addToolUse(block, event.inputError);
        }
        return event.type !== 'message_end' && event.type !== 'error';
      });
      if (end === 'aborted') builder.endWith('aborted');
    } catch (error) {
      builder.endWith('error', errorMessage(error));
    }
    if (turnSignal.aborted) builder.endWith('aborted');
    builder.endWith('error', 'The model stream ended without a stop reason.');
    executor.endStream(builder.stopReason ?? 'error');
  };
  const pumpTools = async (): Promise<void> => {
    for await (const _ of executor.events()) {
      // Events arrive through onEvent; this only waits for the end.
    }
  };
  // A failure (an onEvent callback that threw) still closes the merged queue, so the turn ends.
  let failure: { error: unknown } | undefined;
  const done = Promise.all([pumpStream(), pumpTools()])
    .catch((error: unknown) => {
      failure = { error };
    })
    .finally(() => merged.close());
  let finished = false;
  try {
    yield* merged;
    await done;
    if (failure) throw failure.error;
    finished = true;
  } finally {
    if (!finished) {
      // The consumer stopped reading: nothing new starts, running calls follow their interrupt
      // behaviour, and the generator returns only once they have settled.
      abandoned.abort();
      executor.interrupt();
      executor.endStream('aborted');
    }
    await executor.settled();
  }

  const outcome: TurnOutcome = {
    assistantMessage: builder.message(),
    toolResults: [],
    newMessages: [],
    stopReason: builder.stopReason ?? 'error',
    usage: builder.usage,
    context: executor.context,
  };
  for (const event of results) {
    if (event.type !== 'tool_result') continue;
    outcome.toolResults.push(event.result);
    outcome.newMessages.push(...event.newMessages);
    if (event.stopReason !== undefined && outcome.hookStopReason === undefined) {
      outcome.hookStopReason = event.stopReason;
    }
  }
  if (builder.errorMessage !== undefined) outcome.errorMessage = builder.errorMessage;
  yield { type: 'turn_end', outcome, at: now() };
}
