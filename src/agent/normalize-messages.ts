import {
  type AssistantMessage,
  type ContentBlock,
  type Message,
  systemReminder,
  type ToolResultBlock,
  type UserMessage,
} from '../core/index.ts';

/** The text of a result efferent writes for a tool_use whose result was never recorded. */
export const missingResultText =
  'No result was recorded for this call (the turn was interrupted before it finished). Run it again if it is still needed.';

const reminderPrefix = '<system-reminder>';

/** Meta text (efferent's own notes) goes to the model only as system-reminder text. */
function metaBlock(block: ContentBlock): ContentBlock {
  if (block.type !== 'text' || block.systemReminder || block.text.startsWith(reminderPrefix)) return block;
  return systemReminder(block.text);
}

function keepBlock(block: ContentBlock): boolean {
  return !(block.type === 'text' && block.text.trim() === '');
}

/**
 * Makes a conversation valid for any provider: every tool_use gets exactly one tool_result, placed
 * first in the next user message and in call order (a missing one is written as an error result);
 * results that answer no call are dropped; meta messages become system-reminder text; empty text and
 * empty assistant messages are dropped and user messages that end up adjacent merge, so turns
 * alternate. The input is not modified.
 */
export function normalizeMessagesForApi(messages: readonly Message[]): Message[] {
  const merged: Message[] = [];
  for (const message of messages) {
    const content = (
      message.role === 'user' && message.isMeta ? message.content.map(metaBlock) : message.content
    )
      .filter(keepBlock)
      .map((block) => ({ ...block }));
    const previous = merged.at(-1);
    if (previous && previous.role === message.role && message.role === 'user')
      previous.content.push(...content);
    else if (message.role === 'user') merged.push({ role: 'user', content });
    else {
      const assistant: AssistantMessage = { role: 'assistant', content };
      if (message.stopReason !== undefined) assistant.stopReason = message.stopReason;
      merged.push(assistant);
    }
  }

  const result: Message[] = [];
  for (let index = 0; index < merged.length; index += 1) {
    const message = merged[index] as Message;
    if (message.role === 'assistant') {
      if (message.content.length > 0) result.push(message);
      const calls = message.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
      if (calls.length === 0) continue;
      const next = merged[index + 1];
      const following: UserMessage = next?.role === 'user' ? next : { role: 'user', content: [] };
      if (next?.role === 'user') index += 1;
      const results = new Map<string, ToolResultBlock>();
      for (const block of following.content) {
        if (block.type === 'tool_result' && !results.has(block.toolUseId))
          results.set(block.toolUseId, block);
      }
      const answered = calls.map(
        (call): ToolResultBlock =>
          results.get(call.id) ?? {
            type: 'tool_result',
            toolUseId: call.id,
            content: missingResultText,
            isError: true,
          },
      );
      const rest = following.content.filter((block) => block.type !== 'tool_result');
      result.push({ role: 'user', content: [...answered, ...rest] });
      continue;
    }
    // A user message not right after tool calls may not carry results: they would answer nothing.
    const content = message.content.filter((block) => block.type !== 'tool_result');
    if (content.length === 0) continue;
    // An assistant message dropped for being empty (an interrupted turn) leaves two user turns in a row.
    const previous = result.at(-1);
    if (previous?.role === 'user') previous.content.push(...content);
    else result.push({ role: 'user', content });
  }
  return result;
}
