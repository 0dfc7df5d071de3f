import type { Session } from '../../agent/index.ts';
import { normalizeMessagesForApi } from '../../agent/index.ts';
import {
  emptyUsage,
  type Message,
  type ModelProvider,
  type TokenUsage,
  userMessage,
} from '../../core/index.ts';
import { createHookInput } from '../../hooks/index.ts';

/** What a compaction did. */
export interface Compaction {
  messages: Message[];
  /** How many messages were summarised. */
  summarised: number;
  summary: string;
  usage: TokenUsage;
}

const instructions =
  "Summarise the conversation above so that the work can continue without it: the user's goals and requests, decisions made, files read or changed (with paths), commands run and their outcomes, errors and how they were handled, and what remains to do. Be specific and complete; write plain text without preamble.";

/**
 * Where the kept, recent part starts: the latest user message that is a prompt (not tool results)
 * leaving at least `keep` messages after the cut, so every tool_use keeps its tool_result.
 */
function cutIndex(messages: readonly Message[], keep: number): number {
  for (let index = messages.length - keep; index > 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user' && !message.content.some((block) => block.type === 'tool_result'))
      return index;
  }
  return messages.length;
}

/**
 * Replaces the older part of a conversation with a summary the model writes. The most recent
 * exchange (from the last user prompt on, when there is an earlier one) stays as it is, so no
 * tool_use is separated from its tool_result; PreCompact hooks run first.
 */
export async function compactConversation(options: {
  provider: ModelProvider;
  session: Session;
  messages: readonly Message[];
  systemPrompt: string;
  trigger: 'manual' | 'auto';
  focus?: string;
  signal: AbortSignal;
  keep?: number;
}): Promise<Compaction> {
  const { messages } = options;
  const cut = cutIndex(messages, options.keep ?? 2);
  const older = messages.slice(0, cut);
  const kept = messages.slice(cut);
  if (older.length === 0) return { messages: [...messages], summarised: 0, summary: '', usage: emptyUsage() };
  const { session } = options;
  if (session.hooks.hasHooks('PreCompact', options.trigger)) {
    await session.hooks.run(
      'PreCompact',
      createHookInput(
        'PreCompact',
        session.context,
        { trigger: options.trigger, custom_instructions: options.focus ?? null },
        session.context.run.transcriptPath,
      ),
      { signal: options.signal, matchValue: options.trigger },
    );
  }
  const request = [
    ...normalizeMessagesForApi(older),
    userMessage(options.focus ? `${instructions}\nFocus on: ${options.focus}` : instructions),
  ];
  let summary = '';
  let usage = emptyUsage();
  let failure: string | undefined;
  for await (const event of options.provider.stream({
    systemPrompt: options.systemPrompt,
    messages: normalizeMessagesForApi(request),
    tools: [],
    signal: options.signal,
  })) {
    if (event.type === 'text_delta') summary += event.text;
    else if (event.type === 'message_end') usage = event.usage;
    else if (event.type === 'error') failure = event.message;
  }
  if (failure !== undefined || summary.trim() === '') {
    throw new Error(
      `The conversation could not be summarised (${failure ?? 'the model returned no text'}); it was left as it was. Try /compact again.`,
    );
  }
  const head = userMessage(`Summary of the earlier conversation (compacted):\n\n${summary.trim()}`);
  const compacted: Message[] =
    kept.length > 0 && kept[0]?.role === 'user'
      ? [{ role: 'user', content: [...head.content, ...kept[0].content] }, ...kept.slice(1)]
      : [
          head,
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'Understood; I will continue from this summary.' }],
          },
        ];
  return { messages: compacted, summarised: older.length, summary: summary.trim(), usage };
}
