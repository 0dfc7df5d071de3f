import type { ToolUseContext } from './context.ts';
import type { PermissionTarget, ToolPermissionResult } from './permission-types.ts';
import type { AnyTool, CanUseTool, ToolProgress, ToolResult } from './tool.ts';

/**
 * A shell command analysed once for one call. `src/shell` makes it (`prepareShellCommand`); the
 * permission engine and hook conditions adopt it only when it was made by that analyser for the same
 * command, and each directory and home it is asked about gets its own analysis (made at most once).
 */
export interface PreparedShellAnalysis {
  /** The command line exactly as analysed. */
  readonly command: string;
  /** The analysis as seen from `cwd` with `home` (src/shell's `CommandAnalysis`); opaque to core. */
  analysisFor(cwd: string, home: string | undefined): unknown;
}

/**
 * What a tool works out once for one validated input (gemini-cli's `build()` → invocation): every
 * answer it gives replaces the tool's per-input method for this call. Anything left out is answered
 * by the tool's own method, once, and remembered.
 */
export interface ToolInvocation<Output = unknown, Progress = unknown> {
  permissionTarget?(context: ToolUseContext): PermissionTarget;
  isReadOnly?(): boolean;
  isConcurrencySafe?(): boolean;
  cancelsSiblingsOnError?(): boolean;
  /** The tool's objection (e.g. Bash's sed preview), from the prepared state. */
  checkPermissions?(context: ToolUseContext): Promise<ToolPermissionResult>;
  /** Runs the prepared call. */
  call?(
    context: ToolUseContext,
    canUseTool: CanUseTool,
    onProgress: (progress: ToolProgress<Progress>) => void,
    toolUseId: string,
  ): Promise<ToolResult<Output>>;
  /** For shell tools: the one analysis of the command, shared by every later step. */
  readonly shellAnalysis?: PreparedShellAnalysis;
}

/**
 * One call, prepared once after validation: the tool, the parsed input, and the answers later steps
 * read (permission target, read-only, concurrency, the tool's objection, the run). Predicates that
 * throw answer the fail-closed way (not read-only, not concurrency-safe, no target).
 */
export interface PreparedCall {
  readonly tool: AnyTool;
  /** The input the tool runs with (schema-parsed, internal fields only from a permission decision). */
  readonly input: Record<string, unknown>;
  /** The backfilled copy hooks and rules are shown (`input` itself when the tool backfills nothing). */
  readonly observableInput: Record<string, unknown>;
  /** The shell analysis, for shell tools. */
  readonly shellAnalysis: PreparedShellAnalysis | undefined;
  permissionTarget(context: ToolUseContext): PermissionTarget;
  isReadOnly(): boolean;
  isConcurrencySafe(): boolean;
  cancelsSiblingsOnError(): boolean;
  checkPermissions(context: ToolUseContext): Promise<ToolPermissionResult>;
  call(
    context: ToolUseContext,
    canUseTool: CanUseTool,
    onProgress: (progress: ToolProgress<unknown>) => void,
    toolUseId: string,
  ): Promise<ToolResult<unknown>>;
  /** The same preparation, showing hooks and rules `observableInput` (the answers are shared). */
  withObservableInput(observableInput: Record<string, unknown>): PreparedCall;
  /**
   * The tool as code that takes `(tool, input)` should see it (the permission resolver, hook
   * conditions): asked about this call's observable input, it gives the prepared answers; asked
   * about any other input (a hook's rewrite), it asks the tool itself.
   */
  readonly view: AnyTool;
}

const preparedOfView = Symbol('efferent.preparedCall');

/** The prepared call behind a {@link PreparedCall.view}, or undefined for a plain tool. */
export function preparedCallOf(tool: AnyTool): PreparedCall | undefined {
  return (tool as { [preparedOfView]?: PreparedCall })[preparedOfView];
}

function failClosed(answer: () => boolean): boolean {
  try {
    return answer() === true;
  } catch {
    return false;
  }
}

function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** The answers shared by every view of one preparation. */
interface Answers {
  tool: AnyTool;
  input: Record<string, unknown>;
  invocation: ToolInvocation | undefined;
  readOnly: () => boolean;
  concurrencySafe: () => boolean;
  cancelsSiblings: () => boolean;
}

function preparedFrom(answers: Answers, observableInput: Record<string, unknown>): PreparedCall {
  const { tool, input, invocation } = answers;
  // One target per context object: the pipeline passes the same context through every step.
  let targetFor: { context: ToolUseContext; target: PermissionTarget } | undefined;
  const permissionTarget = (context: ToolUseContext): PermissionTarget => {
    if (targetFor?.context === context) return targetFor.target;
    const target = invocation?.permissionTarget
      ? invocation.permissionTarget(context)
      : tool.permissionTarget(observableInput, context);
    targetFor = { context, target };
    return target;
  };
  const checkPermissions = (context: ToolUseContext): Promise<ToolPermissionResult> =>
    invocation?.checkPermissions
      ? invocation.checkPermissions(context)
      : tool.checkPermissions(observableInput, context);
  const prepared: PreparedCall = {
    tool,
    input,
    observableInput,
    shellAnalysis: invocation?.shellAnalysis,
    permissionTarget,
    isReadOnly: answers.readOnly,
    isConcurrencySafe: answers.concurrencySafe,
    cancelsSiblingsOnError: answers.cancelsSiblings,
    checkPermissions,
    call: (context, canUseTool, onProgress, toolUseId) =>
      invocation?.call
        ? invocation.call(context, canUseTool, onProgress, toolUseId)
        : tool.call(input, context, canUseTool, onProgress, toolUseId),
    withObservableInput: (next) => preparedFrom(answers, next),
    view: undefined as unknown as AnyTool,
  };
  // Only answers the preparation owns are shared; for the rest the view asks the tool, as before.
  // The view inherits every other field from the tool (no copy of the tool per call).
  const mine = (candidate: unknown) => candidate === observableInput;
  const own = (value: unknown): PropertyDescriptor => ({ value, enumerable: true });
  // Defined, not assigned: a frozen tool's read-only fields must not stop the view from answering.
  const view = Object.create(tool, {
    [preparedOfView]: { value: prepared },
    permissionTarget: own((candidate: Record<string, unknown>, context: ToolUseContext) =>
      mine(candidate) ? permissionTarget(context) : tool.permissionTarget(candidate, context),
    ),
    isReadOnly: own((candidate: Record<string, unknown>) =>
      mine(candidate) && invocation?.isReadOnly ? answers.readOnly() : tool.isReadOnly(candidate),
    ),
    isConcurrencySafe: own((candidate: Record<string, unknown>) =>
      mine(candidate) && invocation?.isConcurrencySafe
        ? answers.concurrencySafe()
        : tool.isConcurrencySafe(candidate),
    ),
    cancelsSiblingsOnError: own((candidate: Record<string, unknown>) =>
      mine(candidate) && invocation?.cancelsSiblingsOnError
        ? answers.cancelsSiblings()
        : tool.cancelsSiblingsOnError(candidate),
    ),
    checkPermissions: own((candidate: Record<string, unknown>, context: ToolUseContext) =>
      mine(candidate) ? checkPermissions(context) : tool.checkPermissions(candidate, context),
    ),
  }) as AnyTool;
  return Object.assign(prepared, { view });
}

/**
 * Prepares one validated call: asks the tool's `prepare` (when it has one) once, and remembers every
 * answer the first time it is asked for. `previous` is the preparation this one replaces (the input
 * was rewritten); a tool may reuse what does not depend on the change (Bash: the analysis of an
 * unchanged command).
 */
export function prepareCall(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  previous?: PreparedCall,
): PreparedCall {
  let invocation: ToolInvocation | undefined;
  if (tool.prepare) {
    const prior = previous?.tool === tool ? previous.shellAnalysis : undefined;
    invocation = tool.prepare(input, context, prior === undefined ? {} : { shellAnalysis: prior });
  }
  const answers: Answers = {
    tool,
    input,
    invocation,
    readOnly: once(() =>
      failClosed(() => (invocation?.isReadOnly ? invocation.isReadOnly() : tool.isReadOnly(input))),
    ),
    concurrencySafe: once(() =>
      failClosed(() =>
        invocation?.isConcurrencySafe ? invocation.isConcurrencySafe() : tool.isConcurrencySafe(input),
      ),
    ),
    cancelsSiblings: once(() =>
      failClosed(() =>
        invocation?.cancelsSiblingsOnError
          ? invocation.cancelsSiblingsOnError()
          : tool.cancelsSiblingsOnError(input),
      ),
    ),
  };
  return preparedFrom(answers, input);
}
