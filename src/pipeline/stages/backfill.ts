import type { AnyTool, ToolUseContext } from '../../core/index.ts';

/**
 * Step 6: a copy of the input with derived fields (absolute paths…) for hooks and permission checks.
 * The original stays byte-stable for the transcript and the prompt cache. A backfill that throws
 * leaves the copy as it was.
 */
export function backfillInput(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Record<string, unknown> {
  const copy = structuredClone(input);
  try {
    tool.backfillObservableInput(copy, context);
    return copy;
  } catch {
    return structuredClone(input);
  }
}
