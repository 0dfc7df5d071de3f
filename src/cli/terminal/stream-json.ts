import { randomUUID } from 'node:crypto';
import type { AgentDone, AgentEvent } from '../../agent/index.ts';
import type { ContentBlock, StreamEvent, TokenUsage } from '../../core/index.ts';

/**
 * Claude Code's headless protocol (`claude -p --output-format stream-json --verbose`): a
 * `system`/`init` line, `assistant` and `user` envelopes carrying the Messages API's own content
 * blocks (snake_case), `stream_event` lines with raw API events when partial messages are asked for,
 * and a final `result` line. `test/cli/fixtures/claude-stream-json.jsonl` records the shape.
 */

type Json = Record<string, unknown>;

/** A content block as the Messages API spells it. */
export function apiContentBlock(block: ContentBlock): Json {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return {
        type: 'image',
        source: { type: 'base64', media_type: block.source.mediaType, data: block.source.data },
      };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content:
          typeof block.content === 'string'
            ? block.content
            : block.content.map((part) => apiContentBlock(part)),
        is_error: block.isError === true,
      };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' };
  }
}

/** Token usage as the Messages API spells it. */
export function apiUsage(usage: TokenUsage): Json {
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
    cache_read_input_tokens: usage.cacheReadInputTokens,
    output_tokens: usage.outputTokens,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
  };
}

/** What the `init` line reports. */
export interface InitInfo {
  sessionId: string;
  cwd: string;
  tools: readonly string[];
  mcpServers: ReadonlyArray<{ name: string; status: string }>;
  model: string;
  permissionMode: string;
  slashCommands?: readonly string[];
  apiKeySource: string;
  version: string;
}

/** A denied call, as `permission_denials` lists it. */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Extra facts of a run the result line needs. */
export interface ResultExtras {
  sessionId: string;
  model: string;
  durationApiMs: number;
  permissionDenials: readonly PermissionDenial[];
  contextWindow?: number;
}

/** The `result` line (also the whole output of `--output-format json`). */
export function resultLine(done: AgentDone, extras: ResultExtras): Json {
  const failed = done.reason === 'error' || done.reason === 'aborted' || done.reason === 'max_turns';
  const cost = done.usage.costUsd === undefined ? 0 : Math.round(done.usage.costUsd * 1e6) / 1e6;
  const line: Json = {
    type: 'result',
    subtype: !failed ? 'success' : done.reason === 'max_turns' ? 'error_max_turns' : 'error_during_execution',
    is_error: failed,
    duration_ms: done.durationMs,
    duration_api_ms: extras.durationApiMs,
    num_turns: done.turns,
    result: done.finalText,
    stop_reason: done.reason,
    session_id: extras.sessionId,
    total_cost_usd: cost,
    usage: apiUsage(done.usage),
    modelUsage: {
      [extras.model]: {
        inputTokens: done.usage.inputTokens,
        outputTokens: done.usage.outputTokens,
        cacheReadInputTokens: done.usage.cacheReadInputTokens,
        cacheCreationInputTokens: done.usage.cacheCreationInputTokens,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: extras.contextWindow ?? 200_000,
      },
    },
    permission_denials: extras.permissionDenials,
    uuid: randomUUID(),
  };
  if (done.usage.costUsd === undefined) line['cost_unknown'] = true;
  if (done.errorMessage !== undefined) line['error'] = done.errorMessage;
  return line;
}

/**
 * Turns efferent's provider-neutral stream events back into the Messages API's raw stream events
 * (`message_start`, `content_block_start/delta/stop`, `message_delta`, `message_stop`), numbering
 * content blocks the way the API does.
 */
export class RawStreamEvents {
  #next = 0;
  #text: number | undefined;
  #thinking: number | undefined;
  readonly #tools = new Map<string, number>();
  #messageId = '';
  #model: string;

  constructor(model: string) {
    this.#model = model;
  }

  convert(event: StreamEvent): Json[] {
    switch (event.type) {
      case 'message_start':
        this.#next = 0;
        this.#text = undefined;
        this.#thinking = undefined;
        this.#tools.clear();
        this.#messageId = event.messageId ?? `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
        if (event.model) this.#model = event.model;
        return [
          {
            type: 'message_start',
            message: {
              id: this.#messageId,
              type: 'message',
              role: 'assistant',
              model: this.#model,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: apiUsage(event.usage ?? emptyTokens),
            },
          },
        ];
      case 'text_delta': {
        const out = this.#closeThinking();
        if (this.#text === undefined) {
          this.#text = this.#next++;
          out.push({
            type: 'content_block_start',
            index: this.#text,
            content_block: { type: 'text', text: '' },
          });
        }
        out.push({
          type: 'content_block_delta',
          index: this.#text,
          delta: { type: 'text_delta', text: event.text },
        });
        return out;
      }
      case 'thinking_delta': {
        const out = this.#closeText();
        if (this.#thinking === undefined) {
          this.#thinking = this.#next++;
          out.push({
            type: 'content_block_start',
            index: this.#thinking,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          });
        }
        if (event.thinking) {
          out.push({
            type: 'content_block_delta',
            index: this.#thinking,
            delta: { type: 'thinking_delta', thinking: event.thinking },
          });
        }
        if (event.signature !== undefined) {
          out.push({
            type: 'content_block_delta',
            index: this.#thinking,
            delta: { type: 'signature_delta', signature: event.signature },
          });
        }
        return out;
      }
      case 'tool_use_start': {
        const out = [...this.#closeText(), ...this.#closeThinking()];
        const index = this.#next++;
        this.#tools.set(event.id, index);
        out.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: event.id, name: event.name, input: {} },
        });
        return out;
      }
      case 'tool_input_delta': {
        const index = this.#tools.get(event.id);
        if (index === undefined) return [];
        return [
          {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: event.partialJson },
          },
        ];
      }
      case 'tool_use_end': {
        const index = this.#tools.get(event.id);
        if (index === undefined) return [];
        this.#tools.delete(event.id);
        return [{ type: 'content_block_stop', index }];
      }
      case 'message_end':
        return [
          ...this.#closeText(),
          ...this.#closeThinking(),
          {
            type: 'message_delta',
            delta: { stop_reason: apiStopReason(event.stopReason), stop_sequence: null },
            usage: { output_tokens: event.usage.outputTokens },
          },
          { type: 'message_stop' },
        ];
      case 'error':
        return [
          {
            type: 'error',
            error: { type: event.retryable ? 'overloaded_error' : 'api_error', message: event.message },
          },
        ];
    }
  }

  #closeText(): Json[] {
    if (this.#text === undefined) return [];
    const index = this.#text;
    this.#text = undefined;
    return [{ type: 'content_block_stop', index }];
  }

  #closeThinking(): Json[] {
    if (this.#thinking === undefined) return [];
    const index = this.#thinking;
    this.#thinking = undefined;
    return [{ type: 'content_block_stop', index }];
  }
}

const emptyTokens: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
};

function apiStopReason(reason: string): string {
  return reason === 'aborted' || reason === 'error' ? 'end_turn' : reason;
}

/** Writes a run's events as Claude Code's stream-json lines. */
export class StreamJsonWriter {
  readonly #write: (line: Json) => void;
  readonly #sessionId: string;
  readonly #partial: boolean;
  readonly #raw: RawStreamEvents;
  #messageId: string | undefined;
  #model: string;

  constructor(options: { write: (line: Json) => void; sessionId: string; model: string; partial: boolean }) {
    this.#write = options.write;
    this.#sessionId = options.sessionId;
    this.#partial = options.partial;
    this.#model = options.model;
    this.#raw = new RawStreamEvents(options.model);
  }

  init(info: InitInfo): void {
    this.#write({
      type: 'system',
      subtype: 'init',
      cwd: info.cwd,
      session_id: info.sessionId,
      tools: info.tools,
      mcp_servers: info.mcpServers,
      model: info.model,
      permissionMode: info.permissionMode,
      slash_commands: info.slashCommands ?? [],
      apiKeySource: info.apiKeySource,
      output_style: 'default',
      agents: [],
      skills: [],
      plugins: [],
      efferent_version: info.version,
      uuid: randomUUID(),
    });
  }

  /** The user's own message, echoed as Claude Code does when it reads stream-json input. */
  user(content: string | ContentBlock[]): void {
    this.#write(
      this.#envelope('user', {
        role: 'user',
        content: typeof content === 'string' ? content : content.map(apiContentBlock),
      }),
    );
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case 'stream':
        if (event.event.type === 'message_start') {
          this.#messageId = event.event.messageId;
          if (event.event.model) this.#model = event.event.model;
        }
        if (this.#partial) {
          for (const raw of this.#raw.convert(event.event)) {
            this.#write({
              type: 'stream_event',
              event: raw,
              session_id: this.#sessionId,
              parent_tool_use_id: null,
              uuid: randomUUID(),
            });
          }
        }
        return;
      case 'assistant_message': {
        // Like Claude Code: one envelope per content block, all with the message's id.
        const id = this.#messageId ?? `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
        const blocks = event.message.content.filter((block) => block.type !== 'text' || block.text !== '');
        for (const block of blocks) {
          this.#write(
            this.#envelope('assistant', {
              id,
              type: 'message',
              role: 'assistant',
              model: this.#model,
              content: [apiContentBlock(block)],
              stop_reason: null,
              stop_sequence: null,
              usage: apiUsage(event.usage),
            }),
          );
        }
        this.#messageId = undefined;
        return;
      }
      case 'tool_results':
        this.#write(
          this.#envelope('user', { role: 'user', content: event.message.content.map(apiContentBlock) }),
        );
        return;
      case 'retry':
        this.#write({
          type: 'system',
          subtype: 'api_retry',
          attempt: event.attempt,
          max_retries: event.maxRetries,
          retry_delay_ms: event.delayMs,
          error: event.reason,
          session_id: this.#sessionId,
          uuid: randomUUID(),
        });
        return;
      default:
        return;
    }
  }

  #envelope(type: 'assistant' | 'user', message: Json): Json {
    return { type, message, parent_tool_use_id: null, session_id: this.#sessionId, uuid: randomUUID() };
  }
}
