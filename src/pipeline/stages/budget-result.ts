import type { AnyTool, ToolResultBlock } from '../../core/index.ts';
import { fillEmptyResult, type ResultBudget, resultBudgetDefaults } from '../../budget/index.ts';

/**
 * Keeps a result inline but cut, when persisting it failed (disk full, read-only session folder):
 * the context must stay bounded even then.
 */
function truncateInline(tool: AnyTool, block: ToolResultBlock): ToolResultBlock {
  const limit = Math.min(tool.maxResultSizeChars, resultBudgetDefaults.globalThreshold);
  if (typeof block.content !== 'string' || block.content.length <= limit) return block;
  const dropped = block.content.length - limit;
  return {
    ...block,
    content: `${block.content.slice(0, limit)}\n... [${dropped} characters cut: the full output could not be saved to disk]`,
  };
}

/**
 * Step 11: result budgeting. Without a budget only the empty-result rule applies; with one, an
 * oversized result is saved to disk and replaced by a preview with the path.
 */
export async function budgetResult(
  budget: ResultBudget | undefined,
  tool: AnyTool,
  block: ToolResultBlock,
): Promise<ToolResultBlock> {
  const filled = fillEmptyResult(tool, block);
  if (!budget) return filled;
  try {
    return await budget.applyToResult(tool, filled);
  } catch {
    return truncateInline(tool, filled);
  }
}
