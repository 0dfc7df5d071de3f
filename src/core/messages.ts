/**
 * Provider-neutral conversation types. Providers translate these to and from their wire formats.
 */

/** Plain text. `systemReminder` marks text efferent injects for the model (wrapped, never shown as chat). */
export interface TextBlock {
  type: 'text';
  text: string;
  systemReminder?: boolean;
}

/** Image media types every provider accepts. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** An image, inline as base64. */
export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; mediaType: ImageMediaType; data: string };
}

/** A model's request to run a tool. `input` is the raw JSON the model produced. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What goes back to the model for one tool_use. */
export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string | Array<TextBlock | ImageBlock>;
  isError?: boolean;
  /** Deferred tools this result loads (ToolSearch); Anthropic gets them as `tool_reference` blocks. */
  toolReferences?: string[];
}

/** Model reasoning, kept so it can be sent back where a provider requires it. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

/** Any block a message can hold. */
export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

/** A user turn: prompts, tool results and reminders. */
export interface UserMessage {
  role: 'user';
  content: ContentBlock[];
  /** Messages efferent made itself (reminders, hook context), not typed by a person. */
  isMeta?: boolean;
}

/** A model turn. */
export interface AssistantMessage {
  role: 'assistant';
  content: ContentBlock[];
  stopReason?: StopReason;
}

/** One message of a conversation. */
export type Message = UserMessage | AssistantMessage;

/** Why a model turn ended, normalised across providers. */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'error'
  | 'aborted';

/** A text block. */
export function textBlock(text: string): TextBlock {
  return { type: 'text', text };
}

/** Text the model sees as an efferent note, wrapped in a system-reminder tag. */
export function systemReminder(text: string): TextBlock {
  return { type: 'text', text: `<system-reminder>\n${text}\n</system-reminder>`, systemReminder: true };
}

/** A user message with the given blocks. */
export function userMessage(content: ContentBlock[] | string, isMeta = false): UserMessage {
  const blocks = typeof content === 'string' ? [textBlock(content)] : content;
  return isMeta ? { role: 'user', content: blocks, isMeta } : { role: 'user', content: blocks };
}

/** The text of a tool result's content, images left out. */
export function toolResultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content
    .filter((part): part is TextBlock => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
