import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the loopback server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** One piece of a response body, sent after `wait` ms. */
export interface Chunk {
  wait?: number;
  text: string;
}

/**
 * What the server answers: SSE chunks (`reset` destroys the connection after them instead of ending
 * the response), an HTTP error with a JSON body and headers, or `drop` (the connection is destroyed
 * before any response).
 */
export type Reply =
  | { chunks: Chunk[]; reset?: boolean }
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { drop: true };

/** A loopback HTTP server on 127.0.0.1:0 that answers each request with the next scripted reply. */
export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the server; `replies` is consumed in order (the last one repeats). */
export async function startLoopbackServer(
  replies: Reply[] | ((request: RecordedRequest) => Reply),
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  let served = 0;
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', async () => {
      const text = Buffer.concat(parts).toString('utf8');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      requests.push(recorded);
      const reply =
        typeof replies === 'function'
          ? replies(recorded)
          : (replies[Math.min(served, replies.length - 1)] as Reply);
      served += 1;
      if ('drop' in reply) {
        request.socket.destroy();
        return;
      }
      if ('status' in reply) {
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        response.end(JSON.stringify(reply.body));
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      for (const chunk of reply.chunks) {
        if (chunk.wait) await new Promise((resolve) => setTimeout(resolve, chunk.wait));
        if (response.destroyed) return;
        response.write(chunk.text);
      }
      if (reply.reset) {
        // Let the written chunks reach the client, then cut the connection mid-stream.
        await new Promise((resolve) => setTimeout(resolve, 20));
        request.socket.destroy();
        return;
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A provider-neutral description of one scripted model turn, rendered to each protocol below. */
export interface TurnScript {
  text?: string;
  toolCalls?: Array<{
    id: string;
    name: string;
    input: Record<string, unknown>;
    wait?: number;
    rawJson?: string;
  }>;
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  model?: string;
  /** Pause before the stop chunk, so a test can see which events came before the end. */
  endWait?: number;
}

function anthropicEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The turn as the Anthropic Messages API streams it, event for event. */
export function anthropicSse(turn: TurnScript): Chunk[] {
  const usage = turn.usage ?? { input: 20, output: 10 };
  const stop = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn');
  const chunks: Chunk[] = [
    {
      text: anthropicEvent('message_start', {
        message: {
          id: 'msg_01Loopback',
          type: 'message',
          role: 'assistant',
          model: turn.model ?? 'claude-sonnet-4-5-20250929',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            cache_creation_input_tokens: usage.cacheWrite ?? 0,
            cache_read_input_tokens: usage.cacheRead ?? 0,
            output_tokens: 1,
          },
        },
      }),
    },
    { text: anthropicEvent('ping', {}) },
  ];
  let index = 0;
  if (turn.text) {
    chunks.push({
      text: anthropicEvent('content_block_start', { index, content_block: { type: 'text', text: '' } }),
    });
    for (const word of turn.text.match(/\S+\s*/g) ?? []) {
      chunks.push({
        text: anthropicEvent('content_block_delta', { index, delta: { type: 'text_delta', text: word } }),
      });
    }
    chunks.push({ text: anthropicEvent('content_block_stop', { index }) });
    index += 1;
  }
  for (const call of turn.toolCalls ?? []) {
    chunks.push({
      wait: call.wait ?? 0,
      text: anthropicEvent('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    });
    const json = call.rawJson ?? JSON.stringify(call.input);
    chunks.push({
      text: anthropicEvent('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: '' },
      }),
    });
    for (let start = 0; start < json.length; start += 8) {
      const partial = json.slice(start, start + 8);
      chunks.push({
        text: anthropicEvent('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        }),
      });
    }
    chunks.push({ text: anthropicEvent('content_block_stop', { index }) });
    index += 1;
  }
  chunks.push({
    wait: turn.endWait ?? 0,
    text: anthropicEvent('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  });
  chunks.push({ text: anthropicEvent('message_stop', {}) });
  return chunks;
}

/** The turn as OpenAI Chat Completions streams it (tool_call deltas by index, usage last, [DONE]). */
export function openaiSse(turn: TurnScript): Chunk[] {
  const base = {
    id: 'chatcmpl-loopback',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: turn.model ?? 'gpt-4.1-2025-04-14',
    system_fingerprint: 'fp_loopback',
  };
  const data = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const usage = turn.usage ?? { input: 20, output: 10 };
  const finish = turn.stopReason === 'max_tokens' ? 'length' : turn.toolCalls?.length ? 'tool_calls' : 'stop';
  const chunks: Chunk[] = [
    {
      text: data([
        {
          index: 0,
          delta: { role: 'assistant', content: '', refusal: null },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    },
  ];
  for (const word of turn.text?.match(/\S+\s*/g) ?? []) {
    chunks.push({
      text: data([{ index: 0, delta: { content: word }, logprobs: null, finish_reason: null }]),
    });
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    chunks.push({
      wait: call.wait ?? 0,
      text: data([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    });
    const json = call.rawJson ?? JSON.stringify(call.input);
    for (let start = 0; start < json.length; start += 8) {
      chunks.push({
        text: data([
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: json.slice(start, start + 8) } }] },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      });
    }
  });
  chunks.push({
    wait: turn.endWait ?? 0,
    text: data([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]),
  });
  chunks.push({
    text: data([], {
      usage: {
        prompt_tokens: usage.input + (usage.cacheRead ?? 0),
        completion_tokens: usage.output,
        total_tokens: usage.input + (usage.cacheRead ?? 0) + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
      },
    }),
  });
  chunks.push({ text: 'data: [DONE]\n\n' });
  return chunks;
}
