import {
  type AnyTool,
  type CanUseTool,
  EfferentError,
  ErrorCodes,
  errorMessage,
  type Message,
  type PreparedCall,
  type RunToolUseOptions,
  type ToolResultBlock,
  type ToolRunEvent,
  type ToolUseBlock,
  type ToolUseContext,
  defaultResultBlock,
  type RunToolUse,
} from '../core/index.ts';
import { recordCheckedPath } from '../core/checked-path.ts';
import { prepareCall } from '../core/prepared-call.ts';
import { createOtelTelemetry, type ToolCallOutcome } from '../telemetry/index.ts';
import { abortedFailure, checkAbort, interruptedMessage } from './stages/abort-check.ts';
import { appendMessages } from './stages/append-messages.ts';
import { backfillInput } from './stages/backfill.ts';
import { budgetResult } from './stages/budget-result.ts';
import { callTool, type ProgressEvent } from './stages/call-tool.ts';
import { classifyAndReport } from './stages/classify-and-report.ts';
import { handleDenial } from './stages/handle-denial.ts';
import { lookupTool } from './stages/lookup.ts';
import { runPostToolFailureHooks } from './stages/post-tool-failure-hooks.ts';
import { runPostToolHooks } from './stages/post-tool-hooks.ts';
import { runPreToolHooks } from './stages/pre-tool-hooks.ts';
import { resolvePermission } from './stages/resolve-permission.ts';
import { startClassifier } from './stages/start-classifier.ts';
import { deferredNotLoaded, validateSchema } from './stages/validate-schema.ts';
import { validateSemantics } from './stages/validate-semantics.ts';
import { type CallFailure, type ToolErrorCall, type ToolRunnerDeps, toolUseError } from './types.ts';

/** How a call ended, before it is reported. */
interface Terminal {
  result: ToolResultBlock;
  newMessages: Message[];
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
  stopReason?: string;
  outcome: ToolCallOutcome;
  error?: unknown;
}

function failureTerminal(toolUseId: string, failure: CallFailure): Terminal {
  const block: ToolResultBlock = { type: 'tool_result', toolUseId, content: failure.message, isError: true };
  const { result, newMessages } = appendMessages({
    result: block,
    additionalContext: failure.additionalContext ?? [],
    feedback: failure.feedback ?? [],
  });
  const terminal: Terminal = { result, newMessages, outcome: failure.outcome, error: failure.error };
  if (failure.stopReason !== undefined) terminal.stopReason = failure.stopReason;
  return terminal;
}

/** Hands a thrown error to the developer's `onToolError`; a throwing callback never breaks the call. */
function reportToolError(deps: ToolRunnerDeps, error: unknown, call: ToolErrorCall): void {
  try {
    deps.onToolError?.(error, call);
  } catch {
    // The callback is the developer's; the model's result must not depend on it.
  }
}

/** The text the model reads when `call()` threw: an efferent error speaks for itself. */
function thrownErrorText(tool: AnyTool, error: unknown): string {
  if (EfferentError.isInstance(error)) return toolUseError(error.message);
  return toolUseError(`${tool.name} failed: ${errorMessage(error)}`);
}

/** A tool's mapping of its output, with the plain serialisation as fallback for odd hook output. */
function mapOutput(tool: AnyTool, output: unknown, toolUseId: string): ToolResultBlock {
  try {
    return { ...tool.mapResultToBlock(output, toolUseId), toolUseId };
  } catch {
    return defaultResultBlock(output, toolUseId);
  }
}

async function* runStages(
  deps: ToolRunnerDeps,
  block: ToolUseBlock,
  context: ToolUseContext,
  found: { tool?: AnyTool },
  options: RunToolUseOptions | undefined,
  canUseTool: CanUseTool,
): AsyncGenerator<ProgressEvent, Terminal> {
  const toolUseId = block.id;
  const transcriptPath = deps.transcriptPath?.(context);
  const { hooks } = deps;

  const lookup = lookupTool(block.name, deps.tools, deps.allTools); // 1
  if (!lookup.ok) return failureTerminal(toolUseId, lookup.failure);
  const tool = lookup.value;
  found.tool = tool;

  const aborted = checkAbort(context); // 2
  if (aborted) return failureTerminal(toolUseId, aborted);

  const deferred = deps.deferred;
  const isDeferred = deferred?.isDeferred ? deferred.isDeferred(tool.name) : tool.shouldDefer;
  const schemaNotLoaded = isDeferred && deferred !== undefined && !deferred.isLoaded(tool.name);
  if (schemaNotLoaded && deferred?.isDeferred) return failureTerminal(toolUseId, deferredNotLoaded(tool)); // 3
  // The executor prepared this call from `block.input` to schedule it: the same parse, reused.
  const adopted = options?.prepared?.tool === tool ? options.prepared : undefined;
  const parsed = adopted
    ? { ok: true as const, value: adopted.input }
    : validateSchema(tool, block.input, { schemaNotLoaded }); // 3
  if (!parsed.ok) return failureTerminal(toolUseId, parsed.failure);
  let input = parsed.value;

  const semantic = await validateSemantics(tool, input, context); // 4
  if (!semantic.ok) return failureTerminal(toolUseId, semantic.failure);

  startClassifier(deps.classifierStart, tool, input, context); // 5
  let observable = backfillInput(tool, input, context); // 6
  // Prepared once: everything below reads this, never the raw input again.
  let prepared: PreparedCall = (adopted ?? prepareCall(tool, input, context)).withObservableInput(observable);

  const pre = await runPreToolHooks({
    hooks,
    tool,
    input,
    observableInput: observable,
    toolUseId,
    context,
    prepared,
    transcriptPath,
  }); // 7
  if (!pre.ok) {
    if (pre.failure.deniedReason === undefined) return failureTerminal(toolUseId, pre.failure);
    // A PreToolUse block denies the call: PermissionDenied hooks hear about it as about any denial.
    const denial = await handleDenial({
      hooks,
      tool,
      input: observable,
      toolUseId,
      context,
      message: pre.failure.message,
      reason: pre.failure.deniedReason,
      prepared,
      transcriptPath,
    }); // 9
    return failureTerminal(toolUseId, {
      ...pre.failure,
      message: denial.message,
      additionalContext: [...(pre.failure.additionalContext ?? []), ...denial.additionalContext],
    });
  }
  const context7 = pre.value.additionalContext;
  if (pre.value.inputUpdated) {
    // A rewritten input is a new call: checked, prepared and decided again.
    input = pre.value.input;
    const recheck = await validateSemantics(tool, input, context);
    if (!recheck.ok) return failureTerminal(toolUseId, { ...recheck.failure, additionalContext: context7 });
    observable = backfillInput(tool, input, context);
    prepared = prepareCall(tool, input, context, prepared).withObservableInput(observable);
  }
  if (context.run.abortController.signal.aborted)
    return failureTerminal(toolUseId, { ...abortedFailure(), additionalContext: context7 });

  const permission = await resolvePermission({
    resolver: deps.resolvePermission,
    tool,
    input,
    observableInput: observable,
    toolUseId,
    context,
    prepared,
    ...(pre.value.hookDecision ? { hookDecision: pre.value.hookDecision } : {}),
  }); // 8
  if (!permission.ok) {
    const denial = await handleDenial({
      hooks,
      tool,
      input: observable,
      toolUseId,
      context,
      message: permission.failure.message,
      decision: permission.failure.decision,
      prepared,
      transcriptPath,
    }); // 9
    return failureTerminal(toolUseId, {
      ...permission.failure,
      message: denial.message,
      additionalContext: [...context7, ...denial.additionalContext],
    });
  }
  input = permission.value.input;
  // The decision may run another input (an approved sed result, a rewrite): that one is prepared.
  // Post hooks are shown `observable` (the input before the decision), the prepared call it belongs to.
  const observed = prepared;
  if (input !== prepared.input) prepared = prepareCall(tool, input, context, prepared);

  const callStarted = performance.now();
  const called = yield* callTool({ tool, input, context, canUseTool, toolUseId, prepared }); // 10
  const durationMs = Math.round(performance.now() - callStarted);
  if (called.kind !== 'returned') {
    const isInterrupt = called.kind === 'aborted';
    const message = isInterrupt ? interruptedMessage : thrownErrorText(tool, called.error);
    const failureHooks = await runPostToolFailureHooks({
      hooks,
      tool,
      input: observable,
      toolUseId,
      context,
      error: message,
      isInterrupt,
      durationMs,
      prepared: observed,
      transcriptPath,
    });
    if (!isInterrupt)
      reportToolError(deps, called.error, { toolName: tool.name, toolUseId, input, kind: 'tool_error' });
    const failure: CallFailure = isInterrupt
      ? abortedFailure()
      : { message, outcome: 'tool_error', error: called.error };
    failure.additionalContext = [...context7, ...failureHooks.additionalContext];
    failure.feedback = failureHooks.feedback;
    if (failureHooks.stopReason !== undefined) failure.stopReason = failureHooks.stopReason;
    return failureTerminal(toolUseId, failure);
  }

  let result = await budgetResult(deps.budget, tool, mapOutput(tool, called.result.data, toolUseId)); // 11
  const post = await runPostToolHooks({
    hooks,
    tool,
    input: observable,
    output: called.result.data,
    toolUseId,
    context,
    durationMs,
    prepared: observed,
    transcriptPath,
  }); // 12
  if (post.replacement) {
    result = await budgetResult(deps.budget, tool, mapOutput(tool, post.replacement.value, toolUseId));
  }

  const appended = appendMessages({
    result,
    newMessages: called.result.newMessages ?? [],
    additionalContext: [...context7, ...post.additionalContext],
    feedback: post.feedback,
  }); // 13
  const terminal: Terminal = {
    result: appended.result,
    newMessages: appended.newMessages,
    outcome: appended.result.isError ? 'tool_error' : 'success',
  };
  if (appended.result.isError)
    terminal.error = new EfferentError(ErrorCodes.toolFailed, 'the tool reported an error');
  if (called.result.contextModifier) terminal.contextModifier = called.result.contextModifier;
  if (post.stopReason !== undefined) terminal.stopReason = post.stopReason;
  return terminal;
}

/**
 * The 14-step pipeline as the executor calls it: one tool_use in, progress events as they happen,
 * then exactly one result event. Failures at any step come back as is_error results the model can
 * act on; nothing a tool, hook or resolver does makes this throw.
 */
export function createToolRunner(deps: ToolRunnerDeps): RunToolUse {
  const telemetry = deps.telemetry ?? createOtelTelemetry();
  // What a tool that runs other tools asks before each of them (the same for every call).
  const canUseTool: CanUseTool = (nestedTool, nestedInput, nestedContext, nestedId) =>
    deps.resolvePermission({
      tool: nestedTool,
      input: nestedInput,
      toolUseId: nestedId,
      context: nestedContext,
    });
  return async function* runToolUse(
    block: ToolUseBlock,
    context: ToolUseContext,
    options?: RunToolUseOptions,
  ): AsyncGenerator<ToolRunEvent, void> {
    const startTime = Date.now();
    const started = performance.now();
    const found: { tool?: AnyTool } = {};
    let terminal: Terminal;
    try {
      terminal = yield* runStages(deps, block, context, found, options, canUseTool);
    } catch (error) {
      recordCheckedPath(context.run, block.id, undefined);
      reportToolError(deps, error, {
        toolName: block.name,
        toolUseId: block.id,
        input: block.input,
        kind: 'internal_error',
      });
      terminal = failureTerminal(block.id, {
        message: toolUseError(
          `efferent failed internally while running ${block.name}: ${errorMessage(error)}. This is not caused by your input; continue without this call or try it once more.`,
        ),
        outcome: 'internal_error',
        error: EfferentError.isInstance(error)
          ? error
          : new EfferentError(ErrorCodes.internal, 'pipeline error', { cause: error }),
      });
    }
    // A decision records the path it judged for the tool to take; a call that ended without the
    // tool taking it (denied, blocked, failed first) must not leave it behind for the run's life.
    recordCheckedPath(context.run, block.id, undefined);
    const errorClass = classifyAndReport({
      telemetry,
      tool: found.tool,
      toolUseId: block.id,
      agentId: context.agent.agentId,
      outcome: terminal.outcome,
      error: terminal.error,
      startTime,
      durationMs: Math.round(performance.now() - started),
    }); // 14
    const event: Extract<ToolRunEvent, { type: 'result' }> = {
      type: 'result',
      result: terminal.result,
      newMessages: terminal.newMessages,
    };
    if (terminal.contextModifier) event.contextModifier = terminal.contextModifier;
    if (terminal.stopReason !== undefined) event.stopReason = terminal.stopReason;
    if (errorClass !== undefined) event.errorClass = errorClass;
    yield event;
  };
}
