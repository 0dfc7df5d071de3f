import type { AnyTool, ToolPermissionResult, ToolUseContext } from '../core/index.ts';

/**
 * WebSearch asks by default. efferent has no WebSearch tool of its own, but a program or an MCP
 * server may bring one; a search sends the query off the machine, so — as in Claude Code — it is
 * asked about unless a rule allows it, even when the tool says it only reads. An explicit allow rule
 * still allows it in plan mode when the tool does not write (plan mode allows only read-only calls).
 */

/** The name Claude Code's rules use for the web search tool. */
export const webSearchToolName = 'WebSearch';

/** True for a tool answering to WebSearch: by its name, an alias, or its name on its MCP server. */
export function isWebSearchTool(tool: AnyTool): boolean {
  return (
    tool.name === webSearchToolName ||
    (tool.aliases ?? []).includes(webSearchToolName) ||
    tool.mcpInfo?.toolName === webSearchToolName
  );
}

const askMessage = `${webSearchToolName} sends the query off this machine, so it is asked about; allow it with a rule (permissions.allow: ["${webSearchToolName}"]) to stop this question.`;

/**
 * The tool with a permission check that asks unless its own check denies. The ask may be approved
 * by an explicit rule for the whole tool; in plan mode (where the engine does not let such a rule
 * approve an asking tool) `hasExplicitAllow` is consulted and, when it holds, plan mode's rule
 * applies: allowed if the call does not write, asked about otherwise.
 */
export function askingWebSearch(tool: AnyTool, hasExplicitAllow: (tool: AnyTool) => boolean): AnyTool {
  const own = tool.checkPermissions.bind(tool);
  const checkPermissions = async (
    input: Record<string, unknown>,
    context: ToolUseContext,
  ): Promise<ToolPermissionResult> => {
    const result = await own(input, context);
    if (result.behavior === 'deny') return result;
    if (context.run.permissionMode === 'plan' && hasExplicitAllow(tool))
      return readsOnly(tool, input) ? allowedInPlanMode(tool) : { behavior: 'passthrough' };
    if (result.behavior === 'ask') return result;
    return { behavior: 'ask', message: askMessage, ruleApprovable: true };
  };
  return { ...tool, checkPermissions } as AnyTool;
}

/** Whether a tool says it only reads, for any input (MCP tools: the server's `readOnlyHint`). */
export function readOnlyClaim(tool: AnyTool): boolean {
  return readsOnly(tool, {});
}

function readsOnly(tool: AnyTool, input: Record<string, unknown>): boolean {
  try {
    return tool.isReadOnly(input);
  } catch {
    return false;
  }
}

function allowedInPlanMode(tool: AnyTool): ToolPermissionResult {
  return {
    behavior: 'allow',
    reason: `${tool.name} is allowed by an explicit rule and does not write, so plan mode lets it run.`,
  };
}

/**
 * An MCP tool whose server marks it read-only (`readOnlyHint`) and that an explicit rule allows runs in
 * plan mode. The hint alone never allows a call (the engine does not count it as read-only); with
 * the user's rule it only answers plan mode's question — does the call write? — as the tool's own
 * `isReadOnly` does for built-ins.
 */
export function planModeAllowedMcpTool(tool: AnyTool, hasExplicitAllow: (tool: AnyTool) => boolean): AnyTool {
  const own = tool.checkPermissions.bind(tool);
  const checkPermissions = async (
    input: Record<string, unknown>,
    context: ToolUseContext,
  ): Promise<ToolPermissionResult> => {
    const result = await own(input, context);
    if (result.behavior === 'deny') return result;
    if (context.run.permissionMode === 'plan' && hasExplicitAllow(tool) && readsOnly(tool, input))
      return allowedInPlanMode(tool);
    return result;
  };
  return { ...tool, checkPermissions } as AnyTool;
}
