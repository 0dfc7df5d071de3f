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

/** The yes/no questions a tool answers per input, which a preparation may answer for it. */
type Predicate = 'isReadOnly' | 'isConcurrencySafe' | 'cancelsSiblingsOnError';
const predicates: readonly Predicate[] = ['isReadOnly', 'isConcurrencySafe', 'cancelsSiblingsOnError'];

/** The answers shared by every view of one preparation, each worked out the first time it is asked. */
class Answers {
  readonly #known: Partial<Record<Predicate, boolean>> = {};
  constructor(
    readonly tool: AnyTool,
    readonly input: Record<string, unknown>,
    readonly invocation: ToolInvocation | undefined,
  ) {}
  answer(predicate: Predicate): boolean {
    let known = this.#known[predicate];
    if (known === undefined) {
      const { tool, input, invocation } = this;
      known = failClosed(() => {
        const prepared = invocation?.[predicate];
        return prepared ? prepared.call(invocation) : tool[predicate](input);
      });
      this.#known[predicate] = known;
    }
    return known;
  }
}

class Prepared implements PreparedCall {
  readonly tool: AnyTool;
  readonly input: Record<string, unknown>;
  readonly shellAnalysis: PreparedShellAnalysis | undefined;
  // One target per context object: the pipeline passes the same context through every step.
  #targetFor: { context: ToolUseContext; target: PermissionTarget } | undefined;
  #view: AnyTool | undefined;
  constructor(
    readonly answers: Answers,
    readonly observableInput: Record<string, unknown>,
  ) {
    this.tool = answers.tool;
    this.input = answers.input;
    this.shellAnalysis = answers.invocation?.shellAnalysis;
  }
  permissionTarget(context: ToolUseContext): PermissionTarget {
    if (this.#targetFor?.context === context) return this.#targetFor.target;
    const invocation = this.answers.invocation;
    const target = invocation?.permissionTarget
      ? invocation.permissionTarget(context)
      : this.tool.permissionTarget(this.observableInput, context);
    this.#targetFor = { context, target };
    return target;
  }
  isReadOnly(): boolean {
    return this.answers.answer('isReadOnly');
  }
  isConcurrencySafe(): boolean {
    return this.answers.answer('isConcurrencySafe');
  }
  cancelsSiblingsOnError(): boolean {
    return this.answers.answer('cancelsSiblingsOnError');
  }
  checkPermissions(context: ToolUseContext): Promise<ToolPermissionResult> {
    const invocation = this.answers.invocation;
    return invocation?.checkPermissions
      ? invocation.checkPermissions(context)
      : this.tool.checkPermissions(this.observableInput, context);
  }
  call(
    context: ToolUseContext,
    canUseTool: CanUseTool,
    onProgress: (progress: ToolProgress<unknown>) => void,
    toolUseId: string,
  ): Promise<ToolResult<unknown>> {
    const invocation = this.answers.invocation;
    return invocation?.call
      ? invocation.call(context, canUseTool, onProgress, toolUseId)
      : this.tool.call(this.input, context, canUseTool, onProgress, toolUseId);
  }
  withObservableInput(observableInput: Record<string, unknown>): PreparedCall {
    return new Prepared(this.answers, observableInput);
  }
  get view(): AnyTool {
    if (this.#view === undefined) {
      const view = Object.create(viewPrototype(this.tool)) as AnyTool & { [preparedOfView]: Prepared };
      view[preparedOfView] = this;
      this.#view = view;
    }
    return this.#view;
  }
}

/**
 * The methods a view answers from its preparation (for its own observable input) and otherwise
 * from the tool; every other field is the tool's, through the prototype chain (no copy per call).
 * One prototype per tool.
 */
const viewPrototypes = new WeakMap<AnyTool, AnyTool>();

function viewPrototype(tool: AnyTool): AnyTool {
  let prototype = viewPrototypes.get(tool);
  if (prototype !== undefined) return prototype;
  const preparedOf = (view: unknown, candidate: unknown): Prepared | undefined => {
    const prepared = (view as { [preparedOfView]?: Prepared } | undefined)?.[preparedOfView];
    return prepared?.observableInput === candidate ? prepared : undefined;
  };
  const method = (value: unknown): PropertyDescriptor => ({ value, enumerable: true });
  // Defined, not assigned: a frozen tool's read-only fields must not stop the view from answering.
  prototype = Object.create(tool, {
    permissionTarget: method(function (
      this: AnyTool,
      candidate: Record<string, unknown>,
      context: ToolUseContext,
    ) {
      const mine = preparedOf(this, candidate);
      return mine ? mine.permissionTarget(context) : tool.permissionTarget(candidate, context);
    }),
    checkPermissions: method(function (
      this: AnyTool,
      candidate: Record<string, unknown>,
      context: ToolUseContext,
    ) {
      const mine = preparedOf(this, candidate);
      return mine ? mine.checkPermissions(context) : tool.checkPermissions(candidate, context);
    }),
  }) as AnyTool;
  // Each predicate: the preparation's answer when it has its own for this input, else the tool's.
  for (const predicate of predicates) {
    Object.defineProperty(
      prototype,
      predicate,
      method(function (this: AnyTool, candidate: Record<string, unknown>) {
        const mine = preparedOf(this, candidate);
        return mine?.answers.invocation?.[predicate]
          ? mine.answers.answer(predicate)
          : tool[predicate](candidate);
      }),
    );
  }
  viewPrototypes.set(tool, prototype);
  return prototype;
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
  return new Prepared(new Answers(tool, input, invocation), input);
}
