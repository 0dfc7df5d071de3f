import type { AnyTool, PermissionPromptAnswer, ToolResultBlock, ToolUseContext } from '../core/index.ts';
import type { ResultBudget } from '../budget/index.ts';

/**
 * What an adapter needs from a session (structurally typed, so adapters never depend on the agent
 * layer): the pool, the pipeline behind `callTool`, the per-turn budget and the permission query.
 */
export interface AdapterSession {
  readonly tools: readonly AnyTool[];
  readonly context: ToolUseContext;
  readonly resultBudget: ResultBudget;
  callTool(
    name: string,
    input: Record<string, unknown>,
    options?: { id?: string; signal?: AbortSignal; answer?: PermissionPromptAnswer },
  ): Promise<ToolResultBlock>;
  wouldAsk(name: string, input: Record<string, unknown>): Promise<{ ask: boolean }>;
}

/** Options every adapter takes. */
export interface AdapterOptions {
  /**
   * Let the framework's own approval flow decide calls efferent would ask about: its `needsApproval`
   * is answered by `session.wouldAsk`, and a call the framework approved runs as "allow once".
   * Default false: efferent's `askUser` (or, without one, a refusal the model can read) decides.
   */
  needsApproval?: boolean;
  /** Only these tools (by name); default the whole pool. */
  only?: readonly string[];
}

/** The pool's tools an adapter exposes. */
export function adaptedTools(session: AdapterSession, options: AdapterOptions): AnyTool[] {
  if (!options.only) return [...session.tools];
  return options.only.map((name) => {
    const tool = session.tools.find((candidate) => candidate.name === name);
    if (!tool)
      throw new Error(
        `No tool named ${name} is in the session's pool (${session.tools.map((candidate) => candidate.name).join(', ')}).`,
      );
    return tool;
  });
}
