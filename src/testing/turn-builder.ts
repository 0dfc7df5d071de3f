import type { StopReason, TokenUsage } from '../core/index.ts';
import type { ScriptedEvent, ScriptedTurn } from '../providers/session-file.ts';

let nextToolUseId = 1;

/**
 * A scripted model turn built step by step: `turn().text('Reading.').tool('Read', { file_path })`.
 * It is a {@link ScriptedTurn}, so a list of them goes straight to `createScriptedProvider`.
 */
export class TurnBuilder implements ScriptedTurn {
  readonly events: ScriptedEvent[] = [];
  usage?: Partial<TokenUsage>;
  #stopReason: StopReason | undefined;

  /** Default: `tool_use` when the turn calls a tool, `end_turn` otherwise. */
  get stopReason(): StopReason {
    return (
      this.#stopReason ?? (this.events.some((event) => event.type === 'tool_use') ? 'tool_use' : 'end_turn')
    );
  }

  /** Streams `text` as the model's answer. */
  text(text: string): this {
    this.events.push({ type: 'text_delta', text });
    return this;
  }

  /** Streams reasoning text. */
  thinking(thinking: string): this {
    this.events.push({ type: 'thinking_delta', thinking });
    return this;
  }

  /** Calls a tool; the id defaults to a fresh `toolu_test_<n>`. */
  tool(name: string, input: Record<string, unknown>, options: { id?: string } = {}): this {
    const id = options.id ?? `toolu_test_${nextToolUseId++}`;
    this.events.push({ type: 'tool_use', id, name, input });
    return this;
  }

  /** Ends the turn with this stop reason instead of the default. */
  stop(reason: StopReason): this {
    this.#stopReason = reason;
    return this;
  }

  /** Token counts the turn reports (for usage and cost tests). */
  withUsage(usage: Partial<TokenUsage>): this {
    this.usage = usage;
    return this;
  }
}

/** Starts a scripted turn; see {@link TurnBuilder}. */
export function turn(): TurnBuilder {
  return new TurnBuilder();
}
