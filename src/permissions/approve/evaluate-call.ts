import type { AnyTool, PermissionRequest, ToolPermissionResult, ToolUseContext } from '../../core/index.ts';
import { errorMessage, recordCheckedPath } from '../../core/index.ts';
import { type Evaluation, evaluatePermission } from '../decide/evaluate-permission.ts';
import type { ShellAnalyzer } from '../decide/shell/shell-contract.ts';
import type { SessionGrants } from './session-grants.ts';

function toolPermissions(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Promise<ToolPermissionResult> {
  return tool.checkPermissions(input, context).catch((error: unknown) => ({
    behavior: 'ask' as const,
    message: `${tool.name} could not check its own permissions (${errorMessage(error)})`,
    classifierApprovable: false,
  }));
}

const safeReadOnly = (tool: AnyTool, input: Record<string, unknown>): boolean | null => {
  // An MCP server's readOnlyHint is its own claim: it may schedule calls in parallel, never allow one.
  if (tool.mcpInfo) return null;
  try {
    return tool.isReadOnly(input);
  } catch {
    return null;
  }
};

/**
 * Gathers what the pure decision needs (the tool's own answer, its target, whether it is read-only,
 * the rules and workspace in force) and runs {@link evaluatePermission}.
 */
export async function evaluateCall(
  request: PermissionRequest,
  input: Record<string, unknown>,
  grants: SessionGrants,
  shell: ShellAnalyzer | undefined,
): Promise<Evaluation> {
  const { tool, context } = request;
  const workspace = grants.workspaceFor(context);
  const toolResult = await toolPermissions(tool, input, context);
  const evaluated = evaluatePermission({
    tool: { name: tool.name, aliases: tool.aliases },
    input,
    target: tool.permissionTarget(input, context),
    readOnly: safeReadOnly(tool, input),
    toolResult,
    mode: context.run.permissionMode,
    rules: grants.rulesInForce(),
    workspace,
    ...(request.hookDecision ? { hookDecision: request.hookDecision } : {}),
    ...(shell ? { shell } : {}),
  });
  // The tool opens the file this decision judged, and no other (see core/checked-path.ts).
  recordCheckedPath(context.run, request.toolUseId, evaluated.checkedPath);
  return toolResult.behavior === 'ask' && toolResult.preview !== undefined
    ? { ...evaluated, preview: toolResult.preview }
    : evaluated;
}
