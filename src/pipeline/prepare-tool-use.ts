import type { AnyTool, PreparedCall, ToolUseContext } from '../core/index.ts';
import { prepareCall } from '../core/prepared-call.ts';
import { validateSchema } from './stages/validate-schema.ts';

/**
 * A model's call prepared ahead of the pipeline (the executor does this to schedule it): the input
 * parsed exactly as step 3 parses it, then prepared once. Undefined when the schema rejects the
 * input; the pipeline then reports why. Handing the result to the runner (`RunToolUseOptions`) lets
 * it skip parsing and preparing a second time.
 */
export function prepareToolUse(
  tool: AnyTool,
  rawInput: Record<string, unknown>,
  context: ToolUseContext,
): PreparedCall | undefined {
  let parsed: ReturnType<typeof validateSchema>;
  try {
    parsed = validateSchema(tool, rawInput);
  } catch {
    return undefined;
  }
  return parsed.ok ? prepareCall(tool, parsed.value, context) : undefined;
}
