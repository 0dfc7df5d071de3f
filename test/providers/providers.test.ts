import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  type Message,
  type ModelProvider,
  type StreamEvent,
} from '../../src/core/index.ts';
import {
  createAnthropicProvider,
  createOpenAIProvider,
  createScriptedProvider,
  parseSessionFile,
} from '../../src/providers/index.ts';
import { anthropicSse, type LoopbackServer, openaiSse, startLoopbackServer } from './loopback.ts';

const read = buildTool({
  name: 'Read',
  inputSchema: z.object({ file_path: z.string() }),
  prompt: 'Reads a file.',
  async call() {
    return { data: 'x' };
  },
});
const write = buildTool({
  name: 'Write',
  inputSchema: z.object({ file_path: z.string(), content: z.string() }),
  prompt: 'Writes a file.',
  async call() {
    return { data: 'x' };
  },
});
const mcp = buildTool({
  name: 'mcp__docs__search',
  inputSchema: z.object({ query: z.string() }),
  prompt: 'Searches docs.',
  mcpInfo: { serverName: 'docs', toolName: 'search' },
  async call() {
    return { data: 'x' };
  },
});
const tools: AnyTool[] = [read, write, mcp];

const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Look at the chart.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'chart.png' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: 'toolu_1',
        content: [
          { type: 'text', text: 'An image:' },
          { type: 'image', source: { type: 'base64', mediaType: 'image/png', data: pixel } },
        ],
      },
    ],
  },
];

interface Timed {
  event: StreamEvent;
  at: number;
}

async function collect(
  provider: ModelProvider,
  messages: Message[] = history,
  signal = new AbortController().signal,
) {
  const started = performance.now();
  const events: Timed[] = [];
  for await (const event of provider.stream({ systemPrompt: 'Be brief.', messages, tools, signal })) {
    events.push({ event, at: performance.now() - started });
  }
  return events;
}

const at = (events: Timed[], predicate: (event: StreamEvent) => boolean) => {
  const found = events.find((entry) => predicate(entry.event));
  if (!found) throw new Error('event not found');
  return found;
};

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Anthropic provider (real SDK, loopback server)', () => {
  it('streams text and tool calls; each tool_use ends as soon as its block stops', async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          text: 'Let me read both.',
          toolCalls: [
            { id: 'toolu_a', name: 'Read', input: { file_path: 'a.js' } },
            { id: 'toolu_b', name: 'Read', input: { file_path: 'b.js' }, wait: 400 },
          ],
          usage: { input: 120, output: 45, cacheRead: 1000, cacheWrite: 30 },
        }),
      },
    ]);
    const provider = createAnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-test',
      baseURL: server.url,
    });
    const events = await collect(provider);
    const firstEnd = at(events, (event) => event.type === 'tool_use_end' && event.id === 'toolu_a');
    const messageEnd = at(events, (event) => event.type === 'message_end');
    expect(messageEnd.at - firstEnd.at).toBeGreaterThan(100);
    expect(firstEnd.event).toEqual({
      type: 'tool_use_end',
      id: 'toolu_a',
      name: 'Read',
      input: { file_path: 'a.js' },
    });
    expect(messageEnd.event).toEqual({
      type: 'message_end',
      stopReason: 'tool_use',
      usage: { inputTokens: 120, outputTokens: 45, cacheReadInputTokens: 1000, cacheCreationInputTokens: 30 },
    });
    const text = events
      .flatMap((entry) => (entry.event.type === 'text_delta' ? [entry.event.text] : []))
      .join('');
    expect(text).toBe('Let me read both.');

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/messages');
    expect([request?.headers['x-api-key'], request?.headers['authorization']]).toContain(
      request?.headers['x-api-key'] === undefined ? 'Bearer sk-test' : 'sk-test',
    );
    // biome-ignore lint/suspicious/noExplicitAny: reading a wire-format body
    const body = request?.body as Record<string, any>;
    expect(body['stream']).toBe(true);
    expect(body['system']).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body['tools'].map((tool: { name: string }) => tool.name)).toEqual([
      'Read',
      'Write',
      'mcp__docs__search',
    ]);
    expect(body['tools'][1].cache_control).toEqual({ type: 'ephemeral' });
    expect(body['tools'][0].cache_control).toBeUndefined();
    expect(body['tools'][2].cache_control).toBeUndefined();
    expect(body['tools'][0].input_schema).toMatchObject({ type: 'object', required: ['file_path'] });
    expect(body['messages'][2].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: 'An image:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
      ],
      // The moving breakpoint: the whole conversation so far is cached.
      cache_control: { type: 'ephemeral' },
    });
    expect(body['messages'][1].content.at(-1).cache_control).toBeUndefined();
  });

  it('reports a cut-off tool input at max_tokens instead of guessing it', async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          toolCalls: [
            { id: 'toolu_cut', name: 'Write', input: {}, rawJson: '{"file_path":"a.js","content":"func' },
          ],
          stopReason: 'max_tokens',
        }),
      },
    ]);
    const provider = createAnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      baseURL: server.url,
    });
    const events = await collect(provider);
    const end = at(events, (event) => event.type === 'tool_use_end').event;
    expect(end).toMatchObject({ id: 'toolu_cut', input: {} });
    expect((end as { inputError?: string }).inputError).toBeTruthy();
    expect(at(events, (event) => event.type === 'message_end').event).toMatchObject({
      stopReason: 'max_tokens',
    });
  });

  it('turns an overloaded API into a retryable error event', async () => {
    server = await startLoopbackServer([
      { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    ]);
    const provider = createAnthropicProvider({ model: 'm', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const events = await collect(provider);
    expect(events.map((entry) => entry.event)).toEqual([
      { type: 'error', message: expect.stringContaining('Overloaded'), status: 529, retryable: true },
    ]);
  });

  it('ends with stopReason aborted when the signal aborts mid-stream', async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          toolCalls: [{ id: 't', name: 'Read', input: { file_path: 'a' }, wait: 2_000 }],
        }),
      },
    ]);
    const provider = createAnthropicProvider({ model: 'm', apiKey: 'k', baseURL: server.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const events = await collect(provider, history, controller.signal);
    expect(events.at(-1)?.event).toMatchObject({ type: 'message_end', stopReason: 'aborted' });
    expect(events.at(-1)?.at).toBeLessThan(1_000);
  });
});

describe('OpenAI-compatible provider (real SDK, loopback server)', () => {
  it('streams tool_call deltas by index and ends each call when the next one begins', async () => {
    server = await startLoopbackServer([
      {
        chunks: openaiSse({
          text: 'Reading.',
          toolCalls: [
            { id: 'call_a', name: 'Read', input: { file_path: 'a.js' } },
            { id: 'call_b', name: 'Read', input: { file_path: 'b.js' } },
          ],
          endWait: 150,
          usage: { input: 50, output: 20, cacheRead: 100 },
        }),
      },
    ]);
    const provider = createOpenAIProvider({
      model: 'gpt-4.1',
      apiKey: 'sk-test',
      baseURL: `${server.url}/v1`,
    });
    const events = await collect(provider);
    const firstEnd = at(events, (event) => event.type === 'tool_use_end' && event.id === 'call_a');
    const messageEnd = at(events, (event) => event.type === 'message_end');
    expect(messageEnd.at - firstEnd.at).toBeGreaterThan(100);
    expect(firstEnd.event).toMatchObject({ input: { file_path: 'a.js' } });
    expect(at(events, (event) => event.type === 'tool_use_end' && event.id === 'call_b').event).toMatchObject(
      {
        input: { file_path: 'b.js' },
      },
    );
    expect(messageEnd.event).toEqual({
      type: 'message_end',
      stopReason: 'tool_use',
      usage: { inputTokens: 50, outputTokens: 20, cacheReadInputTokens: 100, cacheCreationInputTokens: 0 },
    });

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers['authorization']).toBe('Bearer sk-test');
    // biome-ignore lint/suspicious/noExplicitAny: reading a wire-format body
    const body = request?.body as Record<string, any>;
    expect(body['stream_options']).toEqual({ include_usage: true });
    expect(body['tools'][0]).toMatchObject({
      type: 'function',
      function: { name: 'Read', description: 'Reads a file.' },
    });
    expect(body['messages'].map((message: { role: string }) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(body['messages'][2].tool_calls[0]).toEqual({
      id: 'toolu_1',
      type: 'function',
      function: { name: 'Read', arguments: '{"file_path":"chart.png"}' },
    });
    expect(body['messages'][3]).toEqual({ role: 'tool', tool_call_id: 'toolu_1', content: 'An image:' });
    expect(body['messages'][4].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${pixel}` },
    });
  });

  it('does not end a call that was still open when the response hit the length limit', async () => {
    server = await startLoopbackServer([
      {
        chunks: openaiSse({
          toolCalls: [
            { id: 'call_ok', name: 'Read', input: { file_path: 'a.js' } },
            { id: 'call_cut', name: 'Write', input: {}, rawJson: '{"file_path":"a.js","content":"x"}' },
          ],
          stopReason: 'max_tokens',
        }),
      },
    ]);
    const provider = createOpenAIProvider({ model: 'local', baseURL: `${server.url}/v1` });
    const events = await collect(provider);
    const ends = events.flatMap((entry) => (entry.event.type === 'tool_use_end' ? [entry.event.id] : []));
    expect(ends).toEqual(['call_ok']);
    expect(events.at(-1)?.event).toMatchObject({ type: 'message_end', stopReason: 'max_tokens' });
  });

  it('reports HTTP failures as error events', async () => {
    server = await startLoopbackServer([
      { status: 401, body: { error: { message: 'Incorrect API key provided' } } },
    ]);
    const provider = createOpenAIProvider({ model: 'gpt-4.1', apiKey: 'bad', baseURL: `${server.url}/v1` });
    const events = await collect(provider);
    expect(events.map((entry) => entry.event)).toEqual([
      { type: 'error', message: expect.stringContaining('Incorrect API key'), status: 401, retryable: false },
    ]);
  });
});

describe('scripted provider and session files', () => {
  const session = [
    '// a comment line',
    '{"note":"two reads","events":[{"type":"text_delta","text":"Reading both files.","streamMs":60},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"},"wait":10,"streamMs":40},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b"},"wait":100}],"usage":{"inputTokens":10,"outputTokens":5}}',
    '',
    '{"events":[{"type":"text_delta","text":"Done."}]}',
  ].join('\n');

  it('replays turns with their timing, adding message_start and message_end', async () => {
    const provider = createScriptedProvider(parseSessionFile(session));
    const first = await collect(provider);
    expect(first[0]?.event.type).toBe('message_start');
    const end1 = at(first, (event) => event.type === 'tool_use_end' && event.id === 't1');
    const end2 = at(first, (event) => event.type === 'tool_use_end' && event.id === 't2');
    // Waits run on one schedule from the start: the text's five parts 12 ms apart (48 ms), t1 after
    // 10 ms streaming for 40 ms (98 ms), t2 100 ms later (198 ms). No event comes before its time; a
    // stalled machine may bring a late one and the next together (3 ms allow for timer rounding).
    expect(end1.at).toBeGreaterThanOrEqual(95);
    expect(end2.at).toBeGreaterThanOrEqual(195);
    expect(first.at(-1)?.event).toEqual({
      type: 'message_end',
      stopReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    });
    const deltas = first.filter(
      (entry) => entry.event.type === 'tool_input_delta' && entry.event.id === 't1',
    );
    expect(deltas.length).toBeGreaterThan(1);
    const second = await collect(provider);
    expect(second.at(-1)?.event).toMatchObject({ type: 'message_end', stopReason: 'end_turn' });
    const third = await collect(provider);
    expect(third.map((entry) => entry.event)).toEqual([
      { type: 'error', message: 'replay: the session has no turn 3; the script ended.' },
    ]);
  });

  it('rejects a malformed session file naming the line', () => {
    expect(() => parseSessionFile('{"events":[]}\n{"events": [{"type":"bogus"}]}')).toThrow(
      /line 2: unknown event/,
    );
    expect(() => parseSessionFile('{nope')).toThrow(/line 1: not valid JSON/);
  });
});
