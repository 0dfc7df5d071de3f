import { findToolByName } from '../core/tool-lookup.ts';
import type { AnyTool } from '../core/index.ts';

/** Decides whether a deny rule removes a tool from the pool entirely (e.g. `Bash` or `mcp__server`). */
export type BlanketDenyCheck = (tool: AnyTool) => boolean;

/** What the pool is assembled from. */
export interface ToolPoolInput {
  builtIns: readonly AnyTool[];
  mcpTools?: readonly AnyTool[];
  /** Tools a blanket deny rule names are never shown to the model. */
  isDenied?: BlanketDenyCheck;
}

const byName = (left: AnyTool, right: AnyTool): number =>
  left.name < right.name ? -1 : left.name > right.name ? 1 : 0;

/**
 * The tools the model sees: built-ins (not denied, enabled) sorted by name, then MCP tools (not denied)
 * sorted by name. Sorting each partition separately keeps the built-in prefix byte-identical when
 * MCP servers come and go, so the provider's prompt cache survives.
 */
export function assembleToolPool(input: ToolPoolInput): AnyTool[] {
  const isDenied = input.isDenied ?? (() => false);
  const builtIns = input.builtIns.filter((tool) => !isDenied(tool) && tool.isEnabled()).sort(byName);
  const mcpTools = (input.mcpTools ?? []).filter((tool) => !isDenied(tool)).sort(byName);
  const seen = new Set(builtIns.map((tool) => tool.name));
  // A server cannot shadow a built-in: the first tool with a name wins.
  return [...builtIns, ...mcpTools.filter((tool) => !seen.has(tool.name) && seen.add(tool.name))];
}

/** True for tools that came from an MCP server. */
export function isMcpTool(tool: AnyTool): boolean {
  return tool.mcpInfo !== undefined;
}

/**
 * Finds a tool by name, then by alias, first in the pool and then in the fallback list (all base
 * tools), so transcripts that use a former name still resolve.
 */
export function findTool(
  pool: readonly AnyTool[],
  name: string,
  fallback: readonly AnyTool[] = [],
): AnyTool | undefined {
  return findToolByName(pool, name) ?? findToolByName(fallback, name);
}
