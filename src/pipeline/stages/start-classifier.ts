import type { AnyTool, ToolUseContext } from '../../core/index.ts';
import type { ClassifierStart } from '../types.ts';

/**
 * Step 5: give an auto-mode classifier a head start while hooks and rules run. Only for tools that
 * give the classifier something to read; a failing classifier start never affects the call.
 */
export function startClassifier(
  start: ClassifierStart | undefined,
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): boolean {
  if (!start) return false;
  try {
    if (tool.toAutoClassifierInput(input) === '') return false;
    start(tool, input, context);
    return true;
  } catch {
    return false;
  }
}
