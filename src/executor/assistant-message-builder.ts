import {
  type AssistantMessage,
  type ContentBlock,
  emptyUsage,
  type StopReason,
  type StreamEvent,
  type TokenUsage,
  type ToolUseBlock,
} from '../core/index.ts';

/**
 * Assembles the assistant message from stream events: text and thinking deltas merge into blocks,
 * tool_use blocks keep their stream position. Calls that never completed keep an empty input so every
 * tool_use still gets its result.
 */
export class AssistantMessageBuilder {
  readonly #content: ContentBlock[] = [];
  readonly #toolUses = new Map<string, ToolUseBlock>();
  #stopReason: StopReason | undefined;
  #usage: TokenUsage = emptyUsage();
  #errorMessage: string | undefined;
  #model: string | undefined;

  /** Folds one event into the message. */
  add(event: StreamEvent): void {
    switch (event.type) {
      case 'message_start':
        if (event.model) this.#model = event.model;
        return;
      case 'text_delta': {
        const last = this.#content.at(-1);
        if (last?.type === 'text') last.text += event.text;
        else if (event.text) this.#content.push({ type: 'text', text: event.text });
        return;
      }
      case 'thinking_delta': {
        const last = this.#content.at(-1);
        const block = last?.type === 'thinking' ? last : { type: 'thinking' as const, thinking: '' };
        if (block !== last) this.#content.push(block);
        block.thinking += event.thinking;
        if (event.signature !== undefined) block.signature = event.signature;
        return;
      }
      case 'tool_use_start':
        this.#toolUse(event.id, event.name);
        return;
      case 'tool_input_delta':
        return;
      case 'tool_use_end': {
        const block = this.#toolUse(event.id, event.name);
        block.input = event.inputError === undefined ? event.input : {};
        return;
      }
      case 'message_end':
        this.#stopReason ??= event.stopReason;
        this.#usage = event.usage;
        return;
      case 'error':
        this.#stopReason = 'error';
        this.#errorMessage = event.message;
        if (event.usage) this.#usage = event.usage;
        return;
    }
  }

  /** Marks an abnormal end (an abort, or a stream that stopped without saying why). */
  endWith(stopReason: StopReason, message?: string): void {
    if (this.#stopReason !== undefined) return;
    this.#stopReason = stopReason;
    if (message !== undefined) this.#errorMessage = message;
  }

  get stopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  get usage(): TokenUsage {
    return this.#usage;
  }

  get errorMessage(): string | undefined {
    return this.#errorMessage;
  }

  get model(): string | undefined {
    return this.#model;
  }

  /** The message as it stands; tool_use blocks are in stream order. */
  message(): AssistantMessage {
    const message: AssistantMessage = {
      role: 'assistant',
      content: this.#content.map((block) => ({ ...block })),
    };
    if (this.#stopReason !== undefined) message.stopReason = this.#stopReason;
    return message;
  }

  #toolUse(id: string, name: string): ToolUseBlock {
    const existing = this.#toolUses.get(id);
    if (existing) return existing;
    const block: ToolUseBlock = { type: 'tool_use', id, name, input: {} };
    this.#toolUses.set(id, block);
    this.#content.push(block);
    return block;
  }
}
