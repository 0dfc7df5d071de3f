import { join } from 'node:path';
import type { PermissionMode, ToolUseContext } from '../core/index.ts';
import type { HookEvent, HookInput } from './types.ts';

/**
 * Where hooks are told the transcript lives unless the embedder says otherwise: the session's real
 * JSONL transcript when one is saved (`efferent run`), else a path in the session folder.
 */
export function defaultTranscriptPath(context: ToolUseContext): string {
  const run = context.run;
  if (run.transcriptPath !== undefined) return run.transcriptPath;
  // Asked for every hook input of every call: joined once per session folder.
  const known = joinedTranscripts.get(run);
  if (known?.sessionDir === run.sessionDir) return known.path;
  const path = join(run.sessionDir, 'transcript.jsonl');
  joinedTranscripts.set(run, { sessionDir: run.sessionDir, path });
  return path;
}

const joinedTranscripts = new WeakMap<ToolUseContext['run'], { sessionDir: string; path: string }>();

/** `bubble` is efferent's own mode; hook scripts written for Claude Code only know the others. */
function hookPermissionMode(mode: PermissionMode): PermissionMode {
  return mode === 'bubble' ? 'default' : mode;
}

/**
 * A hook's stdin: the common fields from the context (session, transcript, cwd, mode, event, and the
 * agent id and type inside a subagent) plus the event's own fields.
 */
export function createHookInput(
  event: HookEvent,
  context: ToolUseContext,
  fields: Record<string, unknown>,
  transcriptPath: string = defaultTranscriptPath(context),
): HookInput {
  const input: HookInput = {
    session_id: context.run.sessionId,
    transcript_path: transcriptPath,
    cwd: context.run.cwd,
    permission_mode: hookPermissionMode(context.run.permissionMode),
    hook_event_name: event,
    ...fields,
  };
  if (context.agent.depth > 0) {
    input.agent_id = context.agent.agentId;
    if (context.agent.agentType !== undefined) input.agent_type = context.agent.agentType;
  }
  return input;
}
