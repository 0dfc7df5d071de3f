import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, createToolUseContext, type ModelProvider } from '../../src/core/index.ts';
import { type AgentDone, type AgentEvent, runAgent } from '../../src/agent/index.ts';
import { createToolNameResolver, createToolRunner } from '../../src/pipeline/index.ts';
import { createAnthropicProvider, createOpenAIProvider } from '../../src/providers/index.ts';
import { anthropicSse, type Chunk, type LoopbackServer, openaiSse, startLoopbackServer } from './loopback.ts';

const calls: Array<Record<string, unknown>> = [];
const lookup = buildTool({
  name: 'Lookup',
  inputSchema: z.object({ key: z.string(), ms: z.number().default(0) }),
  prompt: 'Looks a key up.',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  async call(input) {
    calls.push(input);
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    return { data: `value of ${input.key}` };
  },
});
const tools = [lookup];
const runTool = createToolRunner({ tools, resolvePermission: createToolNameResolver({ allow: ['Lookup'] }) });

let server: LoopbackServer | undefined;
afterEach(async () => {
  calls.length = 0;
  await server?.close();
  server = undefined;
});

async function run(
  provider: ModelProvider,
  extra: { maxRetries?: number; signal?: AbortSignal; maxTokens?: number } = {},
): Promise<{ all: AgentEvent[]; done: AgentDone }> {
  const all: AgentEvent[] = [];
  for await (const event of runAgent({
    provider,
    tools,
    runTool,
    context: createToolUseContext({ cwd: process.cwd(), tools }),
    systemPrompt: 'S',
    prompt: 'go',
    retryDelay: { baseMs: 1, maxMs: 5 },
    ...extra,
  })) {
    all.push(event);
  }
  const done = all.at(-1);
  if (done?.type !== 'done') throw new Error('no done event');
  return { all, done };
}

const anthropic = () =>
  createAnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: server?.url ?? '' });
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

/** The start of an Anthropic stream (usage and some text), then an `error` event, as the API sends it mid-stream. */
function overloadedMidStream(inputTokens: number): Chunk[] {
  const start = anthropicSse({ text: 'Half an answer', usage: { input: inputTokens, output: 5 } });
  // message_start, ping, the text block: everything before message_delta.
  const beforeEnd = start.slice(0, -2);
  return [...beforeEnd, { text: `event: error\ndata: ${JSON.stringify(overloaded)}\n\n` }];
}

describe('turn retries (runAgent, real SDKs, loopback servers)', () => {
  it('retries 429 (honouring retry-after-ms), 529 overloaded, 500 and a dropped connection, then succeeds', async () => {
    server = await startLoopbackServer([
      {
        status: 429,
        headers: { 'retry-after-ms': '3' },
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } },
      },
      { status: 529, body: overloaded },
      { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'Internal' } } },
      { drop: true },
      { chunks: anthropicSse({ text: 'Finally.' }) },
    ]);
    const { all, done } = await run(anthropic());
    expect(done).toMatchObject({ reason: 'end_turn', finalText: 'Finally.', turns: 1 });
    expect(server.requests).toHaveLength(5);
    const retries = all.filter((event) => event.type === 'retry');
    expect(retries.map((event) => event.attempt)).toEqual([1, 2, 3, 4]);
    expect(retries[0]).toMatchObject({ delayMs: 3, reason: expect.stringContaining('Slow down') });
  });

  it('retries an overloaded_error that arrives mid-stream before any tool started, and counts both attempts', async () => {
    server = await startLoopbackServer([
      { chunks: overloadedMidStream(700) },
      { chunks: anthropicSse({ text: 'Whole answer.', usage: { input: 900, output: 10 } }) },
    ]);
    const { done } = await run(anthropic());
    expect(done).toMatchObject({ reason: 'end_turn', finalText: 'Whole answer.' });
    // The failed attempt's text is not part of the conversation; its tokens are part of the bill.
    expect(done.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    expect(done.usage.inputTokens).toBe(1600);
  });

  it('does not retry a stream reset after a tool started: the run ends with a clear error and keeps the result', async () => {
    const chunks = anthropicSse({
      toolCalls: [{ id: 'toolu_1', name: 'Lookup', input: { key: 'a', ms: 50 } }],
    });
    server = await startLoopbackServer([
      // Everything up to the tool block's end, then a slow end the reset cuts off.
      { chunks: [...chunks.slice(0, -2), { wait: 300, text: ': keep-alive\n\n' }], reset: true },
      { chunks: anthropicSse({ text: 'Should not be asked.' }) },
    ]);
    const { done, all } = await run(anthropic());
    expect(done.reason).toBe('error');
    expect(done.errorMessage).toMatch(/not retried because a tool had already started/);
    expect(done.errorMessage).toMatch(/\.$/);
    expect(server.requests).toHaveLength(1);
    expect(calls).toEqual([{ key: 'a', ms: 50 }]);
    expect(all.some((event) => event.type === 'retry')).toBe(false);
  });

  it('gives up after maxRetries and counts the errored turns usage', async () => {
    server = await startLoopbackServer([{ chunks: overloadedMidStream(300) }]);
    const { done } = await run(anthropic(), { maxRetries: 2 });
    expect(server.requests).toHaveLength(3);
    expect(done.reason).toBe('error');
    expect(done.errorMessage).toMatch(/Overloaded/);
    expect(done.usage.inputTokens).toBe(900);
  });

  it('counts the usage of an aborted turn', async () => {
    const chunks = anthropicSse({ text: 'Slow', usage: { input: 1234, output: 3 } });
    server = await startLoopbackServer([{ chunks: [...chunks.slice(0, 3), { wait: 5_000, text: '' }] }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    const { done } = await run(anthropic(), { signal: controller.signal });
    expect(done.reason).toBe('aborted');
    expect(done.usage.inputTokens).toBe(1234);
  });

  it('raises the output limit and asks again when a response is cut at max_tokens mid tool call', async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          toolCalls: [{ id: 'toolu_cut', name: 'Lookup', input: {}, rawJson: '{"key":"lo' }],
          stopReason: 'max_tokens',
        }),
      },
      { chunks: anthropicSse({ toolCalls: [{ id: 'toolu_ok', name: 'Lookup', input: { key: 'long' } }] }) },
      { chunks: anthropicSse({ text: 'Done.' }) },
    ]);
    const { done, all } = await run(anthropic(), { maxTokens: 1000 });
    expect(done).toMatchObject({ reason: 'end_turn', finalText: 'Done.' });
    expect(server.requests.map((request) => request.body['max_tokens'])).toEqual([1000, 8192 * 2, 8192 * 2]);
    expect(calls).toEqual([{ key: 'long', ms: 0 }]);
    expect(all.find((event) => event.type === 'retry')).toMatchObject({ maxTokens: 16384 });
  });
});

/** OpenAI-compatible chunks with the tool-call fragments of several calls interleaved, as vLLM and llama.cpp send them. */
function interleavedOpenAi(
  fragments: Array<{ index: number; id?: string; name?: string; args: string }>,
): Chunk[] {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local' };
  const data = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const chunks: Chunk[] = [
    { text: data([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]) },
  ];
  for (const fragment of fragments) {
    const call: Record<string, unknown> = { index: fragment.index, function: { arguments: fragment.args } };
    if (fragment.id) {
      call['id'] = fragment.id;
      call['type'] = 'function';
    }
    if (fragment.name !== undefined) (call['function'] as Record<string, unknown>)['name'] = fragment.name;
    chunks.push({ text: data([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]) });
  }
  chunks.push({ text: data([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]) });
  chunks.push({ text: 'data: [DONE]\n\n' });
  return chunks;
}

describe('OpenAI-compatible tool calls (real SDK, loopback server)', () => {
  const openai = () => createOpenAIProvider({ model: 'local', baseURL: `${server?.url}/v1` });

  it('accumulates interleaved tool-call fragments strictly by index', async () => {
    server = await startLoopbackServer([
      {
        chunks: interleavedOpenAi([
          { index: 0, id: 'call_a', name: 'Lookup', args: '{"ke' },
          { index: 1, id: 'call_b', name: 'Lookup', args: '{"key":' },
          { index: 0, args: 'y":"alpha"' },
          { index: 1, args: '"beta"}' },
          { index: 0, args: '}' },
        ]),
      },
      { chunks: openaiSse({ text: 'Both looked up.' }) },
    ]);
    const { done } = await run(openai());
    expect(done).toMatchObject({ reason: 'end_turn', finalText: 'Both looked up.' });
    const assistant = done.messages[1];
    expect(assistant?.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'Lookup', input: { key: 'alpha' } },
      { type: 'tool_use', id: 'call_b', name: 'Lookup', input: { key: 'beta' } },
    ]);
    expect(calls.map((input) => input['key']).sort()).toEqual(['alpha', 'beta']);
  });

  it('answers a malformed or nameless call with an error result, never a silent success', async () => {
    server = await startLoopbackServer([
      {
        chunks: interleavedOpenAi([
          { index: 0, id: 'call_bad', name: 'Lookup', args: '{"key": alpha' },
          { index: 1, id: 'call_nameless', args: '{"key":"b"}' },
        ]),
      },
      { chunks: openaiSse({ text: 'Noted.' }) },
    ]);
    const { done } = await run(openai());
    const results = done.messages[2]?.content ?? [];
    expect(results).toHaveLength(2);
    for (const result of results) expect(result).toMatchObject({ type: 'tool_result', isError: true });
    expect(calls).toEqual([]);
  });
});
