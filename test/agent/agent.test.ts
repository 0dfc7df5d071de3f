import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  createToolUseContext,
  type Message,
  type ModelRequest,
  systemReminder,
  type ToolResultBlock,
} from '../../src/core/index.ts';
import {
  type AgentDone,
  type AgentEvent,
  costOf,
  missingResultText,
  normalizeMessagesForApi,
  runAgent,
} from '../../src/agent/index.ts';
import { createToolNameResolver, createToolRunner } from '../../src/pipeline/index.ts';
import {
  createAnthropicProvider,
  createScriptedProvider,
  type ScriptedTurn,
} from '../../src/providers/index.ts';
import { anthropicSse, type LoopbackServer, startLoopbackServer } from '../providers/loopback.ts';

const lookup = buildTool({
  name: 'Lookup',
  inputSchema: z.object({ key: z.string(), ms: z.number().default(0) }),
  prompt: 'Looks a key up.',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: () => 'cancel',
  async call(input, context) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, input.ms);
      context.run.abortController.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    });
    return { data: `value of ${input.key}` };
  },
});
const tools = [lookup];
const runTool = createToolRunner({ tools, resolvePermission: createToolNameResolver({ allow: ['Lookup'] }) });

function context() {
  return createToolUseContext({ cwd: process.cwd(), tools });
}

async function drain(events: AsyncIterable<AgentEvent>): Promise<{ all: AgentEvent[]; done: AgentDone }> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  const done = all.at(-1);
  if (done?.type !== 'done') throw new Error('no done event');
  return { all, done };
}

const lookupTurn = (ids: string[], extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({
  events: [
    { type: 'text_delta', text: 'Looking up.' },
    ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'Lookup', input: { key: id, ms: 20 } })),
  ],
  usage: { inputTokens: 1000, outputTokens: 100 },
  ...extra,
});
const finalTurn: ScriptedTurn = {
  events: [{ type: 'text_delta', text: 'All done.' }],
  usage: { inputTokens: 2000, outputTokens: 50, cacheReadInputTokens: 1000 },
};

describe('runAgent', () => {
  it('streams, runs tools, feeds results back first in the next message, and stops at end_turn', async () => {
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider([lookupTurn(['a', 'b']), finalTurn], {
      model: 'claude-sonnet-4-5',
      onRequest: (request) => requests.push(request),
    });
    const { all, done } = await drain(
      runAgent({ provider, tools, runTool, context: context(), systemPrompt: 'S', prompt: 'Find a and b.' }),
    );
    expect(done.reason).toBe('end_turn');
    expect(done.turns).toBe(2);
    expect(done.finalText).toBe('All done.');
    const second = requests[1]?.messages ?? [];
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const results = second[2]?.content as ToolResultBlock[];
    expect(results.map((block) => [block.toolUseId, block.content])).toEqual([
      ['a', 'value of a'],
      ['b', 'value of b'],
    ]);
    expect(done.usage).toMatchObject({ inputTokens: 3000, outputTokens: 150, cacheReadInputTokens: 1000 });
    // 3000 × $3 + 150 × $15 + 1000 × $0.30, per million tokens
    expect(done.usage.costUsd).toBeCloseTo(0.009 + 0.00225 + 0.0003, 8);
    expect(all.filter((event) => event.type === 'tool_result')).toHaveLength(2);
  });

  it('stops at maxTurns', async () => {
    const provider = createScriptedProvider([lookupTurn(['a']), lookupTurn(['b']), finalTurn]);
    const { done } = await drain(
      runAgent({ provider, tools, runTool, context: context(), systemPrompt: '', prompt: 'go', maxTurns: 1 }),
    );
    expect(done.reason).toBe('max_turns');
    expect(done.usage.costUsd).toBeUndefined();
    expect(done.messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result', toolUseId: 'a' });
  });

  it('an abort mid-turn stops the run and still answers every tool_use', async () => {
    const slow: ScriptedTurn = {
      events: [
        { type: 'tool_use', id: 'x', name: 'Lookup', input: { key: 'x', ms: 5_000 } },
        { type: 'text_delta', text: 'still talking', wait: 5_000 },
      ],
    };
    const provider = createScriptedProvider([slow, finalTurn]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 60);
    const started = Date.now();
    const { done } = await drain(
      runAgent({
        provider,
        tools,
        runTool,
        context: context(),
        systemPrompt: '',
        prompt: 'go',
        signal: controller.signal,
      }),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(done.reason).toBe('aborted');
    const result = done.messages.at(-1)?.content[0] as ToolResultBlock;
    expect(result).toMatchObject({ toolUseId: 'x', isError: true });
    expect(result.content).toMatch(/Interrupted by the user/);
  });

  it('reports a provider error as the stop reason', async () => {
    const provider = createScriptedProvider([{ events: [{ type: 'error', message: 'overloaded' }] }]);
    const { done } = await drain(
      runAgent({ provider, tools, runTool, context: context(), systemPrompt: '', prompt: 'go' }),
    );
    expect(done).toMatchObject({ reason: 'error', errorMessage: 'overloaded' });
  });
});

describe('runAgent against the Anthropic SDK on a loopback server', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => server?.close());

  it('sends tool results back as tool_result blocks for the streamed tool_use ids', async () => {
    server = await startLoopbackServer([
      { chunks: anthropicSse({ toolCalls: [{ id: 'toolu_01', name: 'Lookup', input: { key: 'k' } }] }) },
      { chunks: anthropicSse({ text: 'The value is known.' }) },
    ]);
    const provider = createAnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: server.url });
    const { done } = await drain(
      runAgent({ provider, tools, runTool, context: context(), systemPrompt: 'S', prompt: 'What is k?' }),
    );
    expect(done.reason).toBe('end_turn');
    expect(done.finalText).toBe('The value is known.');
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: unknown[] }>;
    expect(messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'toolu_01', name: 'Lookup', input: { key: 'k' } },
    ]);
    // The conversation's cache breakpoint sits on the last message and moves with it.
    expect(messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01',
        content: 'value of k',
        cache_control: { type: 'ephemeral' },
      },
    ]);
    const first = server.requests[0]?.body['messages'] as Array<{ content: Array<Record<string, unknown>> }>;
    expect(first[0]?.content.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
  });
});

describe('normalizeMessagesForApi', () => {
  it('gives every tool_use exactly one result, first and in call order', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'A', input: {} },
          { type: 'tool_use', id: 't2', name: 'B', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'note' },
          { type: 'tool_result', toolUseId: 't2', content: 'two' },
          { type: 'tool_result', toolUseId: 't2', content: 'duplicate' },
          { type: 'tool_result', toolUseId: 'stray', content: 'answers nothing' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'reminder' }], isMeta: true },
    ];
    const normalized = normalizeMessagesForApi(messages);
    expect(normalized).toHaveLength(3);
    expect(normalized[2]?.content).toEqual([
      { type: 'tool_result', toolUseId: 't1', content: missingResultText, isError: true },
      { type: 'tool_result', toolUseId: 't2', content: 'two' },
      { type: 'text', text: 'note' },
      systemReminder('reminder'),
    ]);
  });

  it('adds a user message when the conversation ends on tool calls, and drops empty text', () => {
    const normalized = normalizeMessagesForApi([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'tool_use', id: 't1', name: 'A', input: {} },
        ],
      },
    ]);
    expect(normalized[1]?.content).toEqual([{ type: 'tool_use', id: 't1', name: 'A', input: {} }]);
    expect(normalized[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', content: missingResultText, isError: true }],
    });
  });
});

describe('pricing', () => {
  it('prices known models by family and leaves unknown ones unpriced', () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
    };
    expect(costOf('claude-sonnet-4-5-20250929', usage)).toBe(18);
    expect(costOf('anthropic:claude-opus-4-1', usage)).toBe(90);
    expect(costOf('gpt-4.1-mini', usage)).toBeCloseTo(2);
    expect(costOf('my-local-llama', usage)).toBeUndefined();
  });
});
