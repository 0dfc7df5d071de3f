import { type Message, systemReminder, type TextBlock, type ToolResultBlock } from '../../core/index.ts';

/** What gets attached after the tool result. */
export interface AppendRequest {
  result: ToolResultBlock;
  /** The tool's own `newMessages` (a subagent transcript, reminders). */
  newMessages?: readonly Message[];
  /** Hook `additionalContext`, each wrapped in a system-reminder. */
  additionalContext?: readonly string[];
  /** Hook feedback (`decision:"block"` reasons, exit-2 stderr of PostToolUse). */
  feedback?: readonly string[];
}

/**
 * Step 13: attach hook context and feedback next to the result, inside the tool_result content as
 * system-reminder text blocks. Keeping it inside the result (rather than a separate meta user message)
 * keeps it tied to the call it is about, survives providers that forbid two user messages in a row,
 * and follows the result when an executor reorders results into call order. The tool's own
 * `newMessages` follow the result unchanged.
 */
export function appendMessages(request: AppendRequest): { result: ToolResultBlock; newMessages: Message[] } {
  const notes: TextBlock[] = [
    ...(request.feedback ?? []).map((text) => systemReminder(`PostToolUse hook feedback: ${text}`)),
    ...(request.additionalContext ?? []).map((text) => systemReminder(text)),
  ];
  const newMessages = [...(request.newMessages ?? [])];
  if (notes.length === 0) return { result: request.result, newMessages };
  const content = request.result.content;
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : [...content];
  return { result: { ...request.result, content: [...parts, ...notes] }, newMessages };
}
