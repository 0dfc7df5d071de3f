import { type AnyTool, classifyToolError } from '../../core/index.ts';
import type { Telemetry, ToolCallOutcome } from '../../telemetry/index.ts';

/** Arguments of {@link classifyAndReport}. */
export interface ReportRequest {
  telemetry: Telemetry;
  tool: AnyTool | undefined;
  toolUseId: string;
  agentId: string;
  outcome: ToolCallOutcome;
  /** The failure, if any; only its class is reported. */
  error?: unknown;
  startTime: number;
  durationMs: number;
}

/**
 * The name telemetry may carry: built-in names as they are; MCP tools (named by their servers) as
 * `mcp`, and names that matched no tool (made up by the model) as `unknown`.
 */
export function telemetryToolName(tool: AnyTool | undefined): string {
  if (!tool) return 'unknown';
  return tool.mcpInfo ? 'mcp' : tool.name;
}

/**
 * Step 14: classify the failure with a telemetry-safe label (never a message or a path) and report
 * the call. Returns the label, which also goes on the result event. A failing sink is ignored.
 */
export function classifyAndReport(request: ReportRequest): string | undefined {
  const errorClass = request.outcome === 'success' ? undefined : classifyToolError(request.error);
  const event = {
    toolName: telemetryToolName(request.tool),
    toolUseId: request.toolUseId,
    outcome: request.outcome,
    startTime: request.startTime,
    durationMs: request.durationMs,
    agentId: request.agentId,
  };
  try {
    request.telemetry.recordToolCall(errorClass === undefined ? event : { ...event, errorClass });
  } catch {
    // Telemetry never changes a call's outcome.
  }
  return errorClass;
}
