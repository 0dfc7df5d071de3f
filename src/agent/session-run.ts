import {
  type AnyTool,
  type ContentBlock,
  EfferentError,
  ErrorCodes,
  type Message,
  type PermissionPrompt,
  type PermissionPromptAnswer,
  type RunToolUse,
  type ToolResultBlock,
  type ToolUseBlock,
  type ToolUseContext,
} from '../core/index.ts';
import type { ResultBudget } from '../budget/index.ts';
import type { AgentDone } from './agent-events.ts';
import { runAgent } from './run-agent.ts';
import {
  type AgentRun,
  flattenEvent,
  type PendingApproval,
  type RunEvent,
  type RunResult,
  type SessionRunOptions,
} from './run-events.ts';

/** What `session.run` borrows from its session. */
export interface RunHost {
  tools: readonly AnyTool[];
  runTool: RunToolUse;
  resultBudget: ResultBudget;
  /** The session's current context (cwd and mode after earlier runs and calls). */
  context(): ToolUseContext;
  setContext(context: ToolUseContext): void;
  /** Routes "ask later" answers to this run until `end` is called; presets answer prompts by call id. */
  beginRun(onDeferred: (prompt: PermissionPrompt) => void): {
    deferred: ReadonlyMap<string, PermissionPrompt>;
    preset(toolUseId: string, answer: PermissionPromptAnswer): void;
    end(): void;
  };
}

const defaultSystemPrompt = (cwd: string) =>
  `You are an agent working in ${cwd}. Use the tools to do the user's task, then answer briefly.`;

function toolFinder(tools: readonly AnyTool[], blocks: readonly ContentBlock[]) {
  const names = new Map<string, string>();
  for (const block of blocks) if (block.type === 'tool_use') names.set(block.id, block.name);
  return (toolUseId: string) => {
    const name = names.get(toolUseId);
    return tools.find((tool) => tool.name === name || (name !== undefined && tool.aliases.includes(name)));
  };
}

/** Checks a resume request before anything runs, so mistakes throw from `session.run` itself. */
export function checkResume(host: RunHost, options: SessionRunOptions): void {
  const pending = options.resume;
  if (!pending) {
    if (options.prompt === undefined)
      throw new EfferentError(ErrorCodes.usage, 'session.run needs a prompt (or `resume` with `answers`).');
    return;
  }
  if (pending.version !== 1 || !Array.isArray(pending.messages) || !Array.isArray(pending.prompts))
    throw new EfferentError(
      ErrorCodes.usage,
      'resume is not a pending state from session.run (expected version 1); pass `result.pending` as it was stored.',
    );
  const missing = pending.prompts.filter((prompt) => !options.answers?.[prompt.toolUseId]);
  if (missing.length > 0)
    throw new EfferentError(
      ErrorCodes.usage,
      `resume needs an answer for every pending prompt; missing: ${missing.map((prompt) => `${prompt.toolUseId} (${prompt.toolName})`).join(', ')}.`,
    );
  const last = pending.messages.at(-1);
  if (last?.role !== 'assistant')
    throw new EfferentError(
      ErrorCodes.usage,
      'resume: the pending conversation must end with the assistant message whose calls wait.',
    );
}

/** Builds the pending state from a run that stopped with `awaiting_approval`. */
function pendingFrom(done: AgentDone, deferred: ReadonlyMap<string, PermissionPrompt>): PendingApproval {
  const assistantAt = done.messages.findLastIndex((message) => message.role === 'assistant');
  const resultsMessage = done.messages[assistantAt + 1];
  const results = (resultsMessage?.content ?? []).filter(
    (block): block is ToolResultBlock => block.type === 'tool_result' && !deferred.has(block.toolUseId),
  );
  return {
    version: 1,
    messages: done.messages.slice(0, assistantAt + 1),
    results,
    newMessages: done.messages.slice(assistantAt + 2),
    prompts: [...deferred.values()],
    cwd: done.context.run.cwd,
    permissionMode: done.context.run.permissionMode,
  };
}

/**
 * Runs the calls that waited, with their answers, and returns what the resumed model turn starts
 * from: the conversation and the complete tool-results message.
 */
async function resumeCalls(
  host: RunHost,
  pending: PendingApproval,
  answers: Readonly<Record<string, PermissionPromptAnswer>>,
  run: ReturnType<RunHost['beginRun']>,
  push: (event: RunEvent) => void,
  signal: AbortSignal,
): Promise<{ history: Message[]; prompt: ContentBlock[]; context: ToolUseContext }> {
  const base = host.context();
  let context: ToolUseContext = {
    ...base,
    run: { ...base.run, cwd: pending.cwd, permissionMode: pending.permissionMode },
  };
  const assistant = pending.messages.at(-1) as Message;
  const waiting = new Set(pending.prompts.map((prompt) => prompt.toolUseId));
  const fresh = new Map<string, ToolResultBlock>();
  const newMessages: Message[] = [...pending.newMessages];
  const calls = assistant.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  for (const block of calls) {
    if (!waiting.has(block.id)) continue;
    const answer = answers[block.id];
    if (answer) run.preset(block.id, answer);
    const callContext: ToolUseContext = {
      ...context,
      run: { ...context.run, abortController: linkedController(signal) },
    };
    for await (const event of host.runTool(block, callContext)) {
      if (event.type === 'progress') {
        push({ type: 'tool_progress', toolUseId: block.id, data: event.data, at: Date.now(), turn: 0 });
        continue;
      }
      fresh.set(block.id, event.result);
      newMessages.push(...event.newMessages);
      if (event.contextModifier) context = event.contextModifier(context);
      push({
        type: 'tool_result',
        toolUseId: block.id,
        name: block.name,
        result: event.result,
        newMessages: event.newMessages,
        ran: true,
        at: Date.now(),
        turn: 0,
      });
    }
  }
  const earlier = new Map(pending.results.map((result) => [result.toolUseId, result]));
  const ordered = calls.flatMap((block) => {
    const result = fresh.get(block.id) ?? earlier.get(block.id);
    return result ? [result] : [];
  });
  const budgeted = await host.resultBudget.applyToTurn(ordered, {
    toolFor: toolFinder(host.tools, assistant.content),
  });
  return {
    history: pending.messages,
    prompt: [...budgeted, ...newMessages.flatMap((message) => message.content)],
    context,
  };
}

function linkedController(signal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller;
}

/**
 * `session.run`: the agent loop with everything taken from the session (pool, pipeline, result
 * budget, context), events flattened, and a `result` promise. It starts at once; events are
 * buffered until read.
 */
export function startRun(host: RunHost, options: SessionRunOptions): AgentRun {
  checkResume(host, options);
  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort(options.signal.reason);
    else
      options.signal.addEventListener('abort', () => controller.abort(options.signal?.reason), {
        once: true,
      });
  }
  const queue: RunEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let iterated = false;
  const push = (event: RunEvent) => {
    queue.push(event);
    wake?.();
    wake = undefined;
  };
  let turn = 0;
  const run = host.beginRun((prompt) => push({ type: 'approval_deferred', turn, prompt, at: Date.now() }));

  const result = (async (): Promise<RunResult> => {
    try {
      let history = options.history;
      let prompt = options.prompt as string | ContentBlock[];
      let context = host.context();
      if (options.resume) {
        const resumed = await resumeCalls(
          host,
          options.resume,
          options.answers ?? {},
          run,
          push,
          controller.signal,
        );
        ({ history, prompt, context } = resumed);
      }
      let done: AgentDone | undefined;
      for await (const event of runAgent({
        provider: options.provider,
        tools: host.tools,
        runTool: host.runTool,
        context,
        resultBudget: host.resultBudget,
        systemPrompt: options.systemPrompt ?? defaultSystemPrompt(context.run.cwd),
        prompt,
        signal: controller.signal,
        awaitingApproval: () => run.deferred.size > 0,
        ...(history ? { history } : {}),
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
        ...(options.executeAfterStreamEnd ? { executeAfterStreamEnd: true } : {}),
      })) {
        if (event.type === 'turn_start') turn = event.turn;
        if (event.type === 'done') {
          done = event;
          break;
        }
        push(flattenEvent(event, turn));
      }
      if (!done) throw new EfferentError(ErrorCodes.internal, 'The agent loop ended without a result.');
      host.setContext(done.context);
      const { type: _type, ...summary } = done;
      const outcome: RunResult =
        done.reason === 'awaiting_approval'
          ? { ...summary, pending: pendingFrom(done, run.deferred) }
          : summary;
      push({ type: 'done', ...outcome });
      return outcome;
    } finally {
      run.end();
      ended = true;
      wake?.();
    }
  })();
  // Whoever only iterates still sees a failure (as a throw); whoever only awaits gets the rejection.
  result.catch(() => {});

  return {
    result,
    abort(reason?: unknown) {
      controller.abort(reason ?? new Error('The run was aborted.'));
    },
    async *[Symbol.asyncIterator]() {
      if (iterated) throw new EfferentError(ErrorCodes.usage, 'A run can be iterated only once.');
      iterated = true;
      let sawDone = false;
      try {
        for (;;) {
          const event = queue.shift();
          if (event) {
            yield event;
            if (event.type === 'done') {
              sawDone = true;
              return;
            }
            continue;
          }
          if (ended) {
            await result; // rethrows an unexpected failure
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        // Leaving the loop early (break, throw) stops the run, as with runAgent.
        if (!sawDone) controller.abort(new Error('The run was stopped before it finished.'));
      }
    },
  };
}
