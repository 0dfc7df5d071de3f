import {
  type AnyTool,
  type ContentBlock,
  emptyUsage,
  type Message,
  type ModelProvider,
  type RunToolUse,
  type ToolUseContext,
  type UserMessage,
  userMessage,
} from '../core/index.ts';
import type { ResultBudget } from '../budget/index.ts';
import { runStreamingTurn, type TurnOutcome } from '../executor/index.ts';
import type { HookRunner } from '../hooks/index.ts';
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
  /** The session's hooks: SessionStart (first prompt), UserPromptSubmit and Stop fire around the loop. */
  hooks?: HookRunner;
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
    return options.tools.find(
      (tool) => tool.name === name || (name !== undefined && tool.aliases.includes(name)),
    );
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
      const request = {
        systemPrompt: options.systemPrompt,
        messages: normalizeMessagesForApi(messages),
        tools: options.tools,
        signal: controller.signal,
        isNonInteractive: context.options.isNonInteractive,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      };
      let outcome: TurnOutcome | undefined;
      const turnEvents = runStreamingTurn(options.provider.stream(request), {
        runTool: options.runTool,
        context,
        tools: options.tools,
        ...(options.executeAfterStreamEnd ? { executeAfterStreamEnd: true } : {}),
      });
      for await (const event of turnEvents) {
        if (event.type === 'turn_end') outcome = event.outcome;
        else yield event;
      }
      if (!outcome) return yield finish('error', turn);
      context = outcome.context;
      usage = addUsage(usage, outcome.usage);
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
