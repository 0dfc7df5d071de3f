import { type AnyTool, deferredToolsKey, isDeferrable, type ToolUseContext } from '../core/index.ts';
import type { McpManager } from './manager.ts';

/** The parts of a session MCP needs (structural, so this layer does not depend on the agent). */
export interface McpSessionTarget {
  tools: AnyTool[];
  context: ToolUseContext;
}

/**
 * Hands a started manager to a session created with `extraTools: manager.tools`: the session's
 * resources own it (so `session.dispose()` closes every server and kills its process group), the
 * context lists the servers and their instructions, and tools a `tools/list_changed` adds are
 * appended to the pool (after everything already there, so the cached prefix never changes) and
 * deferred when the session defers tools.
 */
export function attachMcpToSession(manager: McpManager, session: McpSessionTarget): void {
  session.context.run.resources?.get({ name: 'mcp-servers', create: () => manager });
  session.context.options = { ...session.context.options, mcpClients: manager.clientInfo };
  manager.onToolsAdded = (added) => {
    const names = new Set(session.tools.map((tool) => tool.name));
    const fresh = added
      .filter((tool) => !names.has(tool.name))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    session.tools.push(...fresh);
    // When the session defers tools, a server's new tools are deferred too (and announced next turn).
    const deferred = session.context.run.resources?.peek(deferredToolsKey);
    if (deferred && deferred.deferred.size > 0)
      deferred.setDeferred([...deferred.deferred, ...fresh.filter(isDeferrable).map((tool) => tool.name)]);
  };
}
