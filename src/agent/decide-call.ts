import { type DecisionTrace, EfferentError, type PermissionDecision } from '../core/index.ts';
import { loadDefaultShellAnalyzer } from '../permissions/index.ts';
import { findTool } from '../registry/index.ts';
import type { Session } from './session.ts';

/** The permission decision a session would make for one call, without running it. */
export interface CallDecision {
  /** The tool's own name (the call may have used an alias). */
  tool: string;
  behavior: 'allow' | 'deny' | 'ask';
  /** The tool's `isReadOnly(input)`; null when the tool cannot say. */
  readOnly: boolean | null;
  trace: DecisionTrace;
  message?: string;
  /** For an ask: why (see PermissionDecision.askKind); `default` is only "no rule allows it". */
  askKind?: PermissionDecision['askKind'];
}

/**
 * Decides one call the way `call` and `run` do: the same session (settings, directories, trust, mode,
 * pool), the tool found by name or alias, the input parsed by the tool's schema, and the session's
 * permission resolver. Nothing runs: a person is never asked (an ask stays `ask`), and hooks run only
 * if the session was opened with them.
 */
export async function decideCall(
  session: Session,
  toolName: string,
  rawInput: Record<string, unknown>,
): Promise<CallDecision> {
  const tool = findTool(session.tools, toolName, session.allTools);
  if (!tool) {
    const names = session.tools.map((candidate) => candidate.name).join(', ');
    throw new EfferentError('usage', `Unknown tool "${toolName}". Available: ${names}.`);
  }
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
    throw new EfferentError(
      'usage',
      `The input does not fit ${tool.name}'s schema${where}: ${issue?.message ?? 'invalid'}. Run \`efferent tools\` to see its parameters.`,
    );
  }
  const input = parsed.data as Record<string, unknown>;
  // A session opened without waiting for the bash grammar loads it before deciding a command.
  if (targetsCommand(tool, input, session)) await loadDefaultShellAnalyzer();
  let readOnly: boolean | null;
  try {
    readOnly = tool.isReadOnly(input);
  } catch {
    readOnly = null;
  }
  const decision = await session.resolvePermission({
    tool,
    input,
    toolUseId: 'toolu_check_1',
    context: session.context,
  });
  const result: CallDecision = {
    tool: tool.name,
    behavior: decision.behavior === 'allow' ? 'allow' : decision.behavior === 'deny' ? 'deny' : 'ask',
    readOnly,
    trace: decision.trace,
  };
  if (decision.message !== undefined) result.message = decision.message;
  if (result.behavior === 'ask' && decision.askKind !== undefined) result.askKind = decision.askKind;
  return result;
}

/** Whether deciding this call analyses a shell command; anything undecidable counts as yes. */
function targetsCommand(
  tool: NonNullable<ReturnType<typeof findTool>>,
  input: Record<string, unknown>,
  session: Session,
): boolean {
  try {
    return tool.permissionTarget(input, session.context).kind === 'command';
  } catch {
    return true;
  }
}
