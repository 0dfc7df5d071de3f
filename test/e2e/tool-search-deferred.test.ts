import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentDone, type AgentEvent, createSession, runAgent } from '../../src/agent/index.ts';
import type { ModelProvider, ModelRequest, ToolResultBlock } from '../../src/core/index.ts';
import { type ConfiguredMcpServer, attachMcpToSession, McpManager } from '../../src/mcp/index.ts';
import {
  createAnthropicProvider,
  createOpenAIProvider,
  createScriptedProvider,
  type ScriptedTurn,
} from '../../src/providers/index.ts';
import { type SchemaProvider, toRequestTools } from '../../src/registry/index.ts';
import {
  anthropicSse,
  type LoopbackServer,
  openaiSse,
  startLoopbackServer,
  type TurnScript,
} from '../providers/loopback.ts';

const repo = resolve(import.meta.dirname, '..', '..');
const everything = join(
  repo,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const sum = 'mcp__everything__get-sum';

/** The model's side: call the deferred tool blind, search, call it loaded, finish. */
const script: TurnScript[] = [
  { toolCalls: [{ id: 'call_1', name: sum, input: { a: 2, b: 3 } }] },
  {
    toolCalls: [
      { id: 'call_2', name: 'ToolSearch', input: { query: 'add two numbers sum', max_results: 2 } },
    ],
  },
  { toolCalls: [{ id: 'call_3', name: sum, input: { a: 2, b: 3 } }] },
  { text: 'The sum is 5.' },
];

const replayTurns: ScriptedTurn[] = script.map((turn) => ({
  events: [
    ...(turn.text ? [{ type: 'text_delta' as const, text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((call) => ({ type: 'tool_use' as const, ...call })),
  ],
}));

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-tool-search-e2e-')));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function converse(provider: ModelProvider): Promise<AgentDone> {
  const server: ConfiguredMcpServer = {
    name: 'everything',
    scope: 'cli',
    origin: 'test',
    status: 'enabled',
    config: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'], env: {} },
  };
  const manager = new McpManager([server], {});
  await manager.start();
  const session = await createSession({
    cwd: root,
    home: join(root, 'home'),
    trusted: false,
    extraTools: manager.tools,
    toolSearch: 'true',
    cli: { allowedTools: ['mcp__everything'] },
  });
  attachMcpToSession(manager, session);
  try {
    let done: AgentDone | undefined;
    const events: AgentEvent[] = [];
    for await (const event of runAgent({
      provider,
      tools: session.tools,
      runTool: session.runTool,
      context: session.context,
      systemPrompt: 'S',
      prompt: 'What is 2 + 3?',
    })) {
      events.push(event);
      if (event.type === 'done') done = event;
    }
    if (!done) throw new Error('the run did not finish');
    return done;
  } finally {
    await session.dispose();
  }
}

function results(done: AgentDone): ToolResultBlock[] {
  return done.messages.flatMap((message) =>
    message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
  );
}

function expectConversation(done: AgentDone): void {
  expect(done.reason).toBe('end_turn');
  const [blind, search, loaded] = results(done);
  expect(blind?.isError).toBe(true);
  expect(blind?.content).toContain(`Call ToolSearch with query "select:${sum}" to load it`);
  expect(search?.toolReferences?.[0]).toBe(sum);
  expect(search?.content).toContain(`Loaded 2 tools: ${sum}`);
  expect(loaded?.isError).toBeUndefined();
  expect(JSON.stringify(loaded?.content)).toContain('5');
  const reminders = done.messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === 'text' && block.text.includes('<available-deferred-tools>') ? [block.text] : [],
    ),
  );
  // Announced once, with every deferred name (the MCP tools and the deferred built-ins).
  expect(reminders).toHaveLength(1);
  expect(reminders[0]).toContain(`\n${sum}\n`);
  expect(reminders[0]).toContain('\nNotebookEdit\n');
}

const names = (definitions: readonly unknown[]) =>
  definitions.map((definition) => {
    const record = definition as { name?: string; function?: { name: string } };
    return record.function?.name ?? record.name ?? '';
  });

describe('search, load and call a deferred MCP tool', { timeout: 120_000 }, () => {
  it('with a replay model, through each provider emitter (Anthropic, OpenAI, Gemini)', async () => {
    const requests: ModelRequest[] = [];
    const done = await converse(
      createScriptedProvider(replayTurns, { timeScale: 0, onRequest: (request) => requests.push(request) }),
    );
    expectConversation(done);
    const emitted = async (provider: SchemaProvider) =>
      Promise.all(
        requests.map(async (request) =>
          names(await toRequestTools(request.tools, provider, request.deferral)),
        ),
      );
    // Anthropic: the same list every turn, the deferred tools marked defer_loading.
    const anthropic = await emitted('anthropic');
    expect(new Set(anthropic.map((list) => list.join()))).toHaveLength(1);
    const anthropicDefinitions = await toRequestTools(
      requests[0]?.tools ?? [],
      'anthropic',
      requests[0]?.deferral,
    );
    expect(
      anthropicDefinitions.find((definition) => 'name' in definition && definition.name === sum),
    ).toMatchObject({ defer_loading: true });
    expect(
      anthropicDefinitions.find((definition) => 'name' in definition && definition.name === 'ToolSearch'),
    ).not.toHaveProperty('defer_loading');
    // OpenAI and Gemini: the loaded subset, appended to when the search loads more.
    for (const provider of ['openai', 'gemini'] as const) {
      const [first, second, third] = await emitted(provider);
      expect(first).toContain('ToolSearch');
      expect(first).not.toContain(sum);
      expect(second).toEqual(first);
      expect(third?.slice(0, first?.length)).toEqual(first);
      expect(third?.slice(first?.length ?? 0)).toContain(sum);
    }
  });

  it('with the Anthropic Messages API: defer_loading tools and tool_reference results on the wire', async () => {
    const server: LoopbackServer = await startLoopbackServer(
      script.map((turn) => ({ chunks: anthropicSse(turn) })),
    );
    try {
      const done = await converse(
        createAnthropicProvider({
          model: 'claude-sonnet-4-5',
          apiKey: 'k',
          baseURL: server.url,
          maxRetries: 0,
        }),
      );
      expectConversation(done);
      const bodies = server.requests.map((request) => request.body);
      expect(new Set(bodies.map((body) => JSON.stringify(body['tools'])))).toHaveLength(1);
      const tools = bodies[0]?.['tools'] as Array<Record<string, unknown>>;
      expect(tools.find((tool) => tool['name'] === sum)).toMatchObject({ defer_loading: true });
      const third = JSON.stringify(bodies[2]?.['messages']);
      expect(third).toContain(`{"type":"tool_reference","tool_name":"${sum}"}`);
    } finally {
      await server.close();
    }
  });

  it('with an OpenAI-compatible API: the loaded subset, re-emitted after the search', async () => {
    const server: LoopbackServer = await startLoopbackServer(
      script.map((turn) => ({ chunks: openaiSse(turn) })),
    );
    try {
      const done = await converse(
        createOpenAIProvider({ model: 'gpt-4.1', apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
      );
      expectConversation(done);
      const toolNames = server.requests.map((request) =>
        (request.body['tools'] as Array<{ function: { name: string } }>).map((tool) => tool.function.name),
      );
      expect(toolNames[0]).not.toContain(sum);
      expect(toolNames[2]?.slice(0, toolNames[0]?.length)).toEqual(toolNames[0]);
      expect(toolNames[2]).toContain(sum);
    } finally {
      await server.close();
    }
  });
});
