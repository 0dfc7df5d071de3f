import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  deferredToolsKey,
  isDeferrable,
  type ToolResultBlock,
  lazySchema,
} from '../../core/index.ts';
import { type SearchableTool, searchTools, ToolSearchIndex } from './search-index.ts';
import { toolSearchPrompt } from './tool-search.prompt.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    query: z
      .string()
      .min(1)
      .describe(
        '"select:Name1,Name2", an exact tool name, an "mcp__server" prefix, or keywords (+word = required).',
      ),
    max_results: z.number().int().min(1).max(50).optional().describe('How many tools to return (default 5).'),
  }),
);

/** What one search found. */
export interface ToolSearchOutput {
  query: string;
  /** Tool names in rank order; each is loaded. */
  matches: string[];
  /** Names in a `select:` list that no searchable tool has. */
  unknown: string[];
  /** How many tools the search looked through. */
  totalDeferredTools: number;
}

/** Turns pool tools into searchable entries (their descriptions are the prompts the model would read). */
export async function searchableTools(
  tools: readonly AnyTool[],
  pool: readonly AnyTool[],
): Promise<SearchableTool[]> {
  return Promise.all(
    tools.map(async (tool) => ({
      name: tool.name,
      description: await tool.prompt({ tools: pool, isNonInteractive: true }),
      searchHint: tool.searchHint,
      server: tool.mcpInfo?.serverName,
      inputSchema:
        tool.inputJSONSchema ??
        (z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }) as Record<string, unknown>),
    })),
  );
}

/** Indexes are built once per pool and candidate set. */
const indexCache = new WeakMap<readonly AnyTool[], { key: string; index: Promise<ToolSearchIndex> }>();

function indexFor(pool: readonly AnyTool[], candidates: readonly AnyTool[]): Promise<ToolSearchIndex> {
  const key = candidates.map((tool) => tool.name).join('\n');
  const cached = indexCache.get(pool);
  if (cached?.key === key) return cached.index;
  const index = searchableTools(candidates, pool).then((entries) => new ToolSearchIndex(entries));
  indexCache.set(pool, { key, index });
  return index;
}

/** Finds deferred tools and loads their definitions. Never deferred itself. */
export const ToolSearchTool = buildTool({
  name: 'ToolSearch',
  searchHint: 'find and load deferred tools by keyword or name',
  get inputSchema() {
    return inputSchema();
  },
  prompt: toolSearchPrompt,
  alwaysLoad: true,
  description: (input) => `Search tools: ${input.query ?? ''}`,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async call(input, context) {
    const pool = context.options.tools;
    const state = context.run.resources?.get(deferredToolsKey);
    const deferred = state && state.deferred.size > 0 ? state.deferred : undefined;
    const candidates = pool.filter((tool) => (deferred ? deferred.has(tool.name) : isDeferrable(tool)));
    const index = await indexFor(pool, candidates);
    const result = searchTools(index, input.query, input.max_results ?? 5);
    state?.load(result.matches);
    const output: ToolSearchOutput = {
      query: input.query,
      matches: result.matches,
      unknown: result.unknown,
      totalDeferredTools: candidates.length,
    };
    return { data: output };
  },
  mapResultToBlock: (output: ToolSearchOutput, toolUseId) => {
    const lines: string[] = [];
    if (output.matches.length > 0) {
      lines.push(
        `Loaded ${output.matches.length} ${output.matches.length === 1 ? 'tool' : 'tools'}: ${output.matches.join(', ')}. Their full definitions are now available; call them directly.`,
      );
    } else {
      lines.push(
        `No deferred tool matched "${output.query}" (searched ${output.totalDeferredTools}). Try other keywords, an "mcp__server" prefix, or "select:<name>" with a name from the list of deferred tools.`,
      );
    }
    if (output.unknown.length > 0)
      lines.push(
        `Not found: ${output.unknown.join(', ')}. Check the names against the list of deferred tools.`,
      );
    const block: ToolResultBlock = {
      type: 'tool_result',
      toolUseId,
      content: lines.join('\n'),
    };
    if (output.matches.length > 0) block.toolReferences = [...output.matches];
    return block;
  },
  renderToolUse: (input) => input.query ?? '',
});
