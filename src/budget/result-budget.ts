import type { AnyTool, ImageBlock, TextBlock, ToolResultBlock } from '../core/index.ts';
import { persistText } from './persist.ts';
import { formatSize, previewText } from './preview.ts';

/** Options of {@link createResultBudget}. */
export interface ResultBudgetOptions {
  /** The session folder; results go to `<sessionDir>/tool-results/`. */
  sessionDir: string;
  /** Most characters one turn's tool results may carry together. */
  perTurnLimit?: number;
  /** No tool keeps more than this many characters inline, whatever it declares. */
  globalThreshold?: number;
  /** Bytes of the saved output shown in the replacement. */
  previewBytes?: number;
}

/** Keeps tool results inside the context budget by moving oversized ones to disk. */
export interface ResultBudget {
  /** Persists one result when it exceeds the tool's threshold; fills in empty results. */
  applyToResult(tool: AnyTool, block: ToolResultBlock): Promise<ToolResultBlock>;
  /**
   * Persists the largest fresh results of one turn until the turn fits the per-turn limit. `toolFor`
   * lets tools that limit themselves at the source (`maxResultSizeChars: Infinity`, like Read) be kept.
   */
  applyToTurn(
    blocks: readonly ToolResultBlock[],
    options?: { toolFor?: (toolUseId: string) => AnyTool | undefined },
  ): Promise<ToolResultBlock[]>;
}

/** Defaults matching Claude Code. */
export const resultBudgetDefaults = {
  perTurnLimit: 200_000,
  globalThreshold: 50_000,
  previewBytes: 2_000,
} as const;

const persistedTag = '<persisted-output>';

/** The text a result carries inline (images are not counted: they are never persisted as text). */
export function resultTextLength(block: ToolResultBlock): number {
  if (typeof block.content === 'string') return block.content.length;
  return block.content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
}

function resultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content
    .filter((part): part is TextBlock => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** True when the result is already a persisted-output replacement. */
export function isPersistedResult(block: ToolResultBlock): boolean {
  return resultText(block).startsWith(persistedTag);
}

/** The sentence a tool with no output returns, so the model never sees an empty result. */
export function emptyResultText(tool: Pick<AnyTool, 'name'>): string {
  return `(${tool.name} completed with no output)`;
}

/** Replaces an empty result (no text, no images) with {@link emptyResultText}. */
export function fillEmptyResult(tool: Pick<AnyTool, 'name'>, block: ToolResultBlock): ToolResultBlock {
  const empty =
    typeof block.content === 'string'
      ? block.content.trim() === ''
      : block.content.every((part) => part.type === 'text' && part.text.trim() === '');
  return empty ? { ...block, content: emptyResultText(tool) } : block;
}

/** The replacement text for a persisted output. */
export function persistedOutputText(text: string, path: string, previewBytes: number): string {
  const { preview, truncated } = previewText(text, previewBytes);
  const size = formatSize(Buffer.byteLength(text));
  const lines = text.split('\n').length;
  return [
    persistedTag,
    `Output too large to show inline (${size}, ${text.length} characters, ${lines} lines). The full output was saved to: ${path}`,
    '',
    `Preview (first ${formatSize(previewBytes)}):`,
    preview,
    truncated ? '...' : '',
    `To see the rest, use Read on ${path} with offset and limit (line numbers), or Grep it for what you need.`,
    '</persisted-output>',
  ].join('\n');
}

/**
 * Creates the result budget. Per result: threshold `min(tool.maxResultSizeChars, globalThreshold)`,
 * tools declaring Infinity are never persisted. Per turn: over `perTurnLimit`, the largest fresh
 * results are persisted first until the turn fits.
 */
export function createResultBudget(options: ResultBudgetOptions): ResultBudget {
  const perTurnLimit = options.perTurnLimit ?? resultBudgetDefaults.perTurnLimit;
  const globalThreshold = options.globalThreshold ?? resultBudgetDefaults.globalThreshold;
  const previewBytes = options.previewBytes ?? resultBudgetDefaults.previewBytes;

  const persist = async (block: ToolResultBlock): Promise<ToolResultBlock> => {
    const text = resultText(block);
    const path = await persistText(options.sessionDir, text);
    const replacement = persistedOutputText(text, path, previewBytes);
    if (typeof block.content === 'string') return { ...block, content: replacement };
    const images = block.content.filter((part): part is ImageBlock => part.type === 'image');
    return { ...block, content: [{ type: 'text', text: replacement }, ...images] };
  };

  return {
    async applyToResult(tool, block) {
      const filled = fillEmptyResult(tool, block);
      if (tool.maxResultSizeChars === Number.POSITIVE_INFINITY) return filled;
      const threshold = Math.min(tool.maxResultSizeChars, globalThreshold);
      if (resultTextLength(filled) <= threshold || isPersistedResult(filled)) return filled;
      return persist(filled);
    },
    async applyToTurn(blocks, turnOptions = {}) {
      const result = [...blocks];
      let total = result.reduce((sum, block) => sum + resultTextLength(block), 0);
      if (total <= perTurnLimit) return result;
      const candidates = result
        .map((block, index) => ({ block, index, size: resultTextLength(block) }))
        .filter(({ block }) => {
          if (isPersistedResult(block)) return false;
          const tool = turnOptions.toolFor?.(block.toolUseId);
          return tool?.maxResultSizeChars !== Number.POSITIVE_INFINITY;
        })
        .sort((a, b) => b.size - a.size);
      for (const candidate of candidates) {
        if (total <= perTurnLimit) break;
        const replaced = await persist(candidate.block);
        total += resultTextLength(replaced) - candidate.size;
        result[candidate.index] = replaced;
      }
      return result;
    },
  };
}
