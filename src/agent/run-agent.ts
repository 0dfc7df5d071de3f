import { setTimeout as sleep } from 'node:timers/promises';
import { findToolByName } from '../core/tool-lookup.ts';
import {
  type AnyTool,
  type ContentBlock,
  deferredToolsKey,
  emptyUsage,
  type Message,
  type ModelProvider,
  type RunToolUse,
  type StreamEvent,
  systemReminder,
  type TokenUsage,
  type ToolUseContext,
  type UserMessage,
  userMessage,
} from '../core/index.ts';
import type { ResultBudget } from '../budget/index.ts';
import { runStreamingTurn, type TurnOutcome } from '../executor/index.ts';
import { type HookRunner, promptHookProviderKey } from '../hooks/index.ts';
import { runPromptHooks, runStopHooks } from './lifecycle-hooks.ts';
import type { AgentDone, AgentEvent, AgentStopReason } from './agent-events.ts';
import { normalizeMessagesForApi } from './normalize-messages.ts';
import { addUsage, costOf } from './pricing.ts';

/** What one agent run needs. */
export interface RunAgentOptions {
  provider: ModelProvider;
  /** The pool sent to the model, built-ins first and MCP tools after. */
  tools: readonly AnyTool[];
  /** The pipeline every tool call goes through. */
  runTool: RunToolUse;
  context: ToolUseContext;
  systemPrompt: string;
  /** The user's new message. */
  prompt: string | ContentBlock[];
  /** Earlier conversation, for a session that continues. */
  history?: readonly Message[];
  /** Model turns before the run stops; default 50. */
  maxTurns?: number;
  /**
   * Aborting interrupts the run: the model stream stops and tools follow their interrupt behaviour.
   * Aborting the context's `run.abortController` does the same.
   */
  signal?: AbortSignal;
  maxTokens?: number;
  /** Run tools only after each model message ended (no streaming execution). */
  executeAfterStreamEnd?: boolean;
  /** Keeps each turn's tool results together under the per-turn budget (largest fresh ones go to disk). */
  resultBudget?: ResultBudget;
  /**
   * Asked after each turn's tool results: true stops the run there with `awaiting_approval` (a call
   * waits for an answer given later, e.g. in another process).
   */
  awaitingApproval?: () => boolean;
  /**
   * How often a failed model turn is sent again (overload, rate limits, server errors, dropped
   * connections, mid-stream failures before any tool started); default 10. 0 turns retries off.
   */
  maxRetries?: number;
  /** Backoff: the first wait and the longest (ms); defaults 500 and 32,000. `retry-after` wins. */
  retryDelay?: { baseMs?: number; maxMs?: number };
  /** The session's hooks: SessionStart (first prompt), UserPromptSubmit and Stop fire around the loop. */
  hooks?: HookRunner;
}

/** The default {@link RunAgentOptions.maxRetries}. */
export const defaultMaxRetries = 10;
/** The output limit providers use when none is given, and the most a cut turn is raised to. */
const assumedMaxTokens = 8192;
const maxTokensCeiling = 64_000;

/** Exponential backoff with jitter: base·2^(attempt-1), capped, minus up to a quarter at random. */
export function retryDelayMs(
  attempt: number,
  delay: { baseMs?: number; maxMs?: number } = {},
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const max = delay.maxMs ?? 32_000;
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), Math.max(max, 60_000));
  const exponential = Math.min(max, (delay.baseMs ?? 500) * 2 ** (attempt - 1));
  return Math.round(exponential * (1 - 0.25 * random()));
}

function isEmptyUsage(usage: TokenUsage): boolean {
  return (
    usage.inputTokens === 0 &&
    usage.outputTokens === 0 &&
    usage.cacheReadInputTokens === 0 &&
    usage.cacheCreationInputTokens === 0
  );
}

/**
 * Whether a turn that ended badly is worth sending again: a retryable provider failure, or a cut at
 * max_tokens while a tool call was still streaming (sent again with a higher output limit).
 */
function retryPlan(
  outcome: TurnOutcome,
  streamError: Extract<StreamEvent, { type: 'error' }> | undefined,
  cutMidToolCall: boolean,
): { reason: string; raiseMaxTokens?: boolean } | undefined {
  if (outcome.stopReason === 'error' && streamError?.retryable) return { reason: streamError.message };
  if (outcome.stopReason === 'max_tokens' && cutMidToolCall) {
    return {
      reason: 'The response was cut at the output token limit in the middle of a tool call.',
      raiseMaxTokens: true,
    };
  }
  return undefined;
}

/** Applies the per-turn budget; tools that limit themselves at the source (Infinity) are kept inline. */
async function budgetTurn(
  options: RunAgentOptions,
  outcome: TurnOutcome,
): Promise<TurnOutcome['toolResults']> {
  if (!options.resultBudget) return outcome.toolResults;
  const names = new Map<string, string>();
  for (const block of outcome.assistantMessage.content)
    if (block.type === 'tool_use') names.set(block.id, block.name);
  const toolFor = (toolUseId: string) => {
    const name = names.get(toolUseId);
    return name === undefined ? undefined : findToolByName(options.tools, name);
  };
  return options.resultBudget.applyToTurn(outcome.toolResults, { toolFor });
}

function textOf(message: Message | undefined): string {
  if (!message) return '';
  return message.content
    .flatMap((block) => (block.type === 'text' && !block.systemReminder ? [block.text] : []))
    .join('');
}

/**
 * The agent loop: stream a model turn, run its tool calls while it streams, feed the results back, and
 * repeat until the model stops asking for tools, the turn limit is reached, or the run is aborted.
 */
export async function* runAgent(options: RunAgentOptions): AsyncGenerator<AgentEvent, void> {
  const started = Date.now();
  // The run's own controller: it follows the caller's signal and the context's controller (a
  // subagent's context is linked to its parent call), and the run can abort it without touching either.
  const controller = new AbortController();
  const listening = new AbortController();
  for (const source of [options.signal, options.context.run.abortController.signal]) {
    if (!source) continue;
    if (source.aborted) controller.abort(source.reason);
    else
      source.addEventListener('abort', () => controller.abort(source.reason), {
        once: true,
        signal: listening.signal,
      });
  }

  const hooks = options.hooks;
  // `prompt` hooks of the session decide with this run's provider.
  const resources = options.context.run.resources;
  if (hooks && resources && !resources.disposed)
    resources.get(promptHookProviderKey).provider = options.provider;
  const first = (options.history ?? []).length === 0;
  const before = hooks
    ? await runPromptHooks(hooks, options.context, options.prompt, {
        ...(first ? { sessionStart: 'startup' as const } : {}),
        signal: controller.signal,
      })
    : undefined;
  const messages: Message[] = [...(options.history ?? []), userMessage(before?.prompt ?? options.prompt)];
  let stopHookActive = false;
  let context: ToolUseContext = {
    ...options.context,
    options: { ...options.context.options, tools: options.tools },
    run: { ...options.context.run, abortController: controller, messages },
  };
  let usage = emptyUsage();
  const maxTurns = options.maxTurns ?? 50;
  const now = context.run.now;

  let ended = false;
  const finish = (reason: AgentStopReason, turns: number, outcome?: TurnOutcome): AgentDone => {
    ended = true;
    listening.abort();
    const lastAssistant = [...messages].reverse().find((message) => message.role === 'assistant');
    const done: AgentDone = {
      type: 'done',
      reason,
      turns,
      messages,
      usage: { ...usage, costUsd: costOf(options.provider.model, usage) },
      finalText: textOf(lastAssistant),
      context: { ...context, run: { ...context.run, abortController: options.context.run.abortController } },
      durationMs: Date.now() - started,
    };
    if (outcome?.errorMessage !== undefined) done.errorMessage = outcome.errorMessage;
    if (outcome?.hookStopReason !== undefined) done.hookStopReason = outcome.hookStopReason;
    return done;
  };

  const maxRetries = options.maxRetries ?? defaultMaxRetries;
  let maxTokens = options.maxTokens;
  let attempt = 0;
  try {
    if (before?.blocked !== undefined) {
      // A blocked prompt never reaches the model, and the conversation does not keep it.
      messages.pop();
      const done = finish('hook_stop', 0);
      done.hookStopReason = before.blocked;
      return yield done;
    }
    for (let turn = 1; ; turn += 1) {
      if (controller.signal.aborted) return yield finish('aborted', turn - 1);
      yield { type: 'turn_start', turn, at: now() };
      // Deferred tools are announced by name in a reminder that is only ever appended to, so the
      // tool list and the earlier messages stay byte-stable for the prompt cache.
      const deferred = context.run.resources?.peek(deferredToolsKey);
      const announcement = deferred?.takeAnnouncement();
      if (announcement !== undefined)
        messages.push({ role: 'user', isMeta: true, content: [systemReminder(announcement)] });
      const request = {
        systemPrompt: options.systemPrompt,
        messages: normalizeMessagesForApi(messages),
        tools: options.tools,
        ...(deferred && deferred.deferred.size > 0 ? { deferral: deferred.requestDeferral() } : {}),
        signal: controller.signal,
        isNonInteractive: context.options.isNonInteractive,
        ...(maxTokens === undefined ? {} : { maxTokens }),
      };
      let outcome: TurnOutcome | undefined;
      const turnEvents = runStreamingTurn(options.provider.stream(request), {
        runTool: options.runTool,
        context,
        tools: options.tools,
        ...(options.executeAfterStreamEnd ? { executeAfterStreamEnd: true } : {}),
      });
      // What decides whether a failed turn may be sent again: did a tool start, how did it fail.
      let toolStarted = false;
      // The usage the provider reported first, for a turn that is aborted before its end reports it.
      let reported: TokenUsage | undefined;
      let streamError: Extract<StreamEvent, { type: 'error' }> | undefined;
      const openCalls = new Set<string>();
      for await (const event of turnEvents) {
        if (event.type === 'turn_end') outcome = event.outcome;
        else {
          if (event.type === 'tool_started') toolStarted = true;
          else if (event.type === 'stream') {
            const inner = event.event;
            if (inner.type === 'error') streamError = inner;
            else if (inner.type === 'tool_use_start') openCalls.add(inner.id);
            else if (inner.type === 'tool_use_end' && inner.inputError === undefined)
              openCalls.delete(inner.id);
            if ((inner.type === 'message_start' || inner.type === 'error') && inner.usage)
              reported = inner.usage;
          }
          yield event;
        }
      }
      if (!outcome) return yield finish('error', turn);
      // Usage counts for every attempt, failed and aborted ones too: they were paid for.
      usage = addUsage(usage, isEmptyUsage(outcome.usage) && reported ? reported : outcome.usage);
      const aborted = controller.signal.aborted || outcome.stopReason === 'aborted';
      const retry = aborted || toolStarted ? undefined : retryPlan(outcome, streamError, openCalls.size > 0);
      if (retry && attempt < (retry.raiseMaxTokens ? Math.max(maxRetries, 2) : maxRetries)) {
        attempt += 1;
        let delayMs = 0;
        if (retry.raiseMaxTokens) {
          maxTokens = Math.min(
            maxTokensCeiling,
            Math.max(maxTokens ?? assumedMaxTokens, assumedMaxTokens) * 2,
          );
        } else delayMs = retryDelayMs(attempt, options.retryDelay, streamError?.retryAfterMs);
        if (!retry.raiseMaxTokens || maxTokens !== request.maxTokens) {
          yield {
            type: 'retry',
            turn,
            attempt,
            maxRetries,
            delayMs,
            reason: retry.reason,
            ...(retry.raiseMaxTokens && maxTokens !== undefined ? { maxTokens } : {}),
            at: now(),
          };
          if (delayMs > 0)
            await sleep(delayMs, undefined, { signal: controller.signal }).catch(() => undefined);
          turn -= 1;
          continue;
        }
      }
      attempt = 0;
      context = outcome.context;
      if (outcome.stopReason === 'error' && streamError?.retryable && toolStarted && !aborted) {
        outcome.errorMessage = `${outcome.errorMessage ?? streamError.message} The turn was not retried because a tool had already started; its results are kept. Ask again to continue.`;
      }
      messages.push(outcome.assistantMessage);
      yield {
        type: 'assistant_message',
        turn,
        message: outcome.assistantMessage,
        usage: outcome.usage,
        at: now(),
      };
      if (outcome.toolResults.length > 0) {
        const results: UserMessage = { role: 'user', content: await budgetTurn(options, outcome) };
        messages.push(results, ...outcome.newMessages);
        yield { type: 'tool_results', turn, message: results, at: now() };
      }

      if (outcome.toolResults.length > 0 && options.awaitingApproval?.())
        return yield finish('awaiting_approval', turn, outcome);
      if (controller.signal.aborted || outcome.stopReason === 'aborted')
        return yield finish('aborted', turn, outcome);
      if (outcome.stopReason === 'error') return yield finish('error', turn, outcome);
      if (outcome.hookStopReason !== undefined) return yield finish('hook_stop', turn, outcome);
      if (outcome.toolResults.length === 0) {
        const reason: AgentStopReason =
          outcome.stopReason === 'max_tokens'
            ? 'max_tokens'
            : outcome.stopReason === 'refusal'
              ? 'refusal'
              : 'end_turn';
        // A Stop hook may send the model back to work, once per stop, with stop_hook_active set after.
        const goOn =
          reason === 'end_turn' && hooks && turn < maxTurns
            ? await runStopHooks(hooks, context, stopHookActive, controller.signal)
            : undefined;
        if (goOn !== undefined) {
          stopHookActive = true;
          messages.push(userMessage(`Stop hook feedback: ${goOn}`));
          continue;
        }
        return yield finish(reason, turn, outcome);
      }
      if (turn >= maxTurns) return yield finish('max_turns', turn, outcome);
    }
  } finally {
    listening.abort();
    // A consumer that stops reading (or an error) ends the run: the model request and the tools stop.
    if (!ended) controller.abort(new Error('The agent run was stopped before it finished.'));
  }
}
