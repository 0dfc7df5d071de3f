import { readFile, writeFile } from 'node:fs/promises';
import { Agent, type Model, type ModelResponse, run, setTracingDisabled, Usage } from '@openai/agents-core';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session, type SessionOptions } from '../../src/agent/index.ts';
import { createScriptedTool, createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

let workspace: TempWorkspace | undefined;
const sessions: Session[] = [];
beforeAll(() => setTracingDisabled(true));
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await workspace?.dispose();
  workspace = undefined;
});

async function open(settings: unknown, options: Partial<SessionOptions> = {}) {
  workspace = await createTempWorkspace({
    files: { '.efferent/settings.json': JSON.stringify(settings), 'sub/keep.txt': 'x' },
  });
  const session = await createSession({ cwd: workspace.dir, home: workspace.dir, trusted: true, ...options });
  sessions.push(session);
  return { session, ws: workspace };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** An AI SDK mock model: one scripted step per call, tool calls first, then text. */
function aiSdkModel(steps: Array<Array<{ id: string; name: string; input: unknown }> | string>) {
  return new MockLanguageModelV3({
    doGenerate: steps.map((step) =>
      typeof step === 'string'
        ? {
            content: [{ type: 'text' as const, text: step }],
            finishReason: { unified: 'stop' as const, raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: step.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.stringify(call.input),
            })),
            finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
            usage,
            warnings: [],
          },
    ),
  });
}

/** An OpenAI Agents model: one scripted response per call. */
function agentsModel(steps: Array<Array<{ id: string; name: string; input: unknown }> | string>): Model & {
  requests: unknown[];
} {
  const requests: unknown[] = [];
  let index = 0;
  return {
    requests,
    async getResponse(request) {
      requests.push(request.input);
      const step = steps[index++] ?? 'done';
      const output: ModelResponse['output'] =
        typeof step === 'string'
          ? [
              {
                type: 'message',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: step }],
              },
            ]
          : step.map((call) => ({
              type: 'function_call' as const,
              callId: call.id,
              name: call.name,
              arguments: JSON.stringify(call.input),
              status: 'completed' as const,
            }));
      return { usage: new Usage(), output };
    },
    getStreamedResponse() {
      throw new Error('This test model answers only non-streamed requests.');
    },
  };
}

const writingCalls = [
  {
    id: 'w1',
    name: 'Bash',
    input: { command: 'echo start-1 >> order.log; sleep 1; echo end-1 >> order.log' },
  },
  {
    id: 'w2',
    name: 'Bash',
    input: { command: 'echo start-2 >> order.log; sleep 1; echo end-2 >> order.log' },
  },
];

/** A real 8×8 PNG (red) in the workspace; its bytes as base64, as the model should receive them. */
async function writePng(path: string): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  await writeFile(path, png);
  return png.toString('base64');
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition not reached');
}

describe('toAiSdkTools under the real AI SDK', { timeout: 30_000 }, () => {
  it('runs two writing Bash calls one after the other, never in parallel', async () => {
    const { session, ws } = await open({ permissions: { allow: ['Bash'] } });
    const tools = await session.toAiSdkTools();
    const result = await generateText({
      model: aiSdkModel([writingCalls, 'done']),
      tools,
      prompt: 'write twice',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('done');
    const order = (await readFile(ws.path('order.log'), 'utf8')).trim().split('\n');
    expect(order).toEqual(['start-1', 'end-1', 'start-2', 'end-2']);
  });

  it('runs safe calls in parallel and an unsafe one alone', async () => {
    const safe = createScriptedTool({ name: 'Probe', concurrencySafe: true, readOnly: true });
    const unsafe = createScriptedTool({ name: 'Mutate', concurrencySafe: false });
    const { session } = await open(
      { permissions: { allow: ['Probe', 'Mutate'] } },
      { tools: [safe.tool, unsafe.tool] },
    );
    const tools = await session.toAiSdkTools();
    const generation = generateText({
      model: aiSdkModel([
        [
          { id: 'p1', name: 'Probe', input: { gate: 'p1' } },
          { id: 'p2', name: 'Probe', input: { gate: 'p2' } },
          { id: 'm1', name: 'Mutate', input: { gate: 'm1' } },
          { id: 'm2', name: 'Mutate', input: { gate: 'm2' } },
        ],
        'done',
      ]),
      tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    // Both safe calls start while neither has finished; the unsafe ones wait for them.
    await waitUntil(() => safe.calls.length === 2);
    expect(unsafe.calls).toHaveLength(0);
    safe.open('p1');
    safe.open('p2');
    await waitUntil(() => unsafe.calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unsafe.calls).toHaveLength(1);
    unsafe.open('m1');
    await waitUntil(() => unsafe.calls.length === 2);
    expect(unsafe.calls[0]?.endedAt).toBeDefined();
    unsafe.open('m2');
    expect((await generation).text).toBe('done');
  });

  it('keeps a cd for the next step, and gives the model efferent’s refusal text', async () => {
    const { session, ws } = await open({ permissions: { allow: ['Bash(cd *)', 'Bash(pwd)'] } });
    const tools = await session.toAiSdkTools();
    const model = aiSdkModel([
      [{ id: 'c1', name: 'Bash', input: { command: 'cd sub' } }],
      [{ id: 'c2', name: 'Bash', input: { command: 'pwd' } }],
      [{ id: 'c3', name: 'Bash', input: { command: 'rm -rf keep.txt' } }],
      'done',
    ]);
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((part) => part.output));
    expect(JSON.stringify(outputs[1])).toContain(ws.path('sub'));
    expect(JSON.stringify(outputs[2])).toContain('no one is available to approve it');
    // The model saw efferent's text as an error result.
    const lastPrompt = JSON.stringify(model.doGenerateCalls.at(-1)?.prompt);
    expect(lastPrompt).toContain('error-text');
    expect(await readFile(ws.path('sub/keep.txt'), 'utf8')).toBe('x');
  });

  it('answers needsApproval with wouldAsk and runs the call the framework approved', async () => {
    const { session, ws } = await open({});
    const tools = await session.toAiSdkTools({ needsApproval: true });
    const write = { file_path: `${ws.dir}/approved.txt`, content: 'yes\n' };
    const first = await generateText({
      model: aiSdkModel([[{ id: 'a1', name: 'Write', input: write }]]),
      tools,
      prompt: 'write',
    });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    await expect(readFile(ws.path('approved.txt'), 'utf8')).rejects.toThrow();
    const approvalId = request?.type === 'tool-approval-request' ? request.approvalId : '';
    const second = await generateText({
      model: aiSdkModel(['written']),
      tools,
      messages: [
        { role: 'user', content: 'write' },
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] },
      ],
    });
    expect(second.text).toBe('written');
    expect(await readFile(ws.path('approved.txt'), 'utf8')).toBe('yes\n');
  });
});

describe('image results under each framework', { timeout: 30_000 }, () => {
  it('gives the AI SDK model a Read of a PNG as an image part', async () => {
    const { session, ws } = await open({});
    const data = await writePng(ws.path('red.png'));
    const model = aiSdkModel([
      [{ id: 'r1', name: 'Read', input: { file_path: ws.path('red.png') } }],
      'seen',
    ]);
    const result = await generateText({
      model,
      tools: await session.toAiSdkTools(),
      prompt: 'look',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('seen');
    const toolMessage = model.doGenerateCalls.at(-1)?.prompt.find((message) => message.role === 'tool');
    const part = toolMessage?.role === 'tool' ? toolMessage.content[0] : undefined;
    expect(part?.type === 'tool-result' ? part.output : undefined).toEqual({
      type: 'content',
      value: [{ type: 'image-data', data, mediaType: 'image/png' }],
    });
  });

  it('gives the OpenAI Agents model a Read of a PNG as an input image', async () => {
    const { session, ws } = await open({});
    const data = await writePng(ws.path('red.png'));
    const model = agentsModel([
      [{ id: 'r1', name: 'Read', input: { file_path: ws.path('red.png') } }],
      'seen',
    ]);
    const agent = new Agent({
      name: 'efferent',
      instructions: 'Use the tools.',
      model,
      tools: await session.toOpenAIAgentsTools(),
    });
    const result = await run(agent, 'look');
    expect(result.finalOutput).toBe('seen');
    const items = model.requests.at(-1) as Array<{ type?: string; output?: unknown }>;
    const output = items.find((item) => item.type === 'function_call_result')?.output;
    expect(output).toEqual([{ type: 'input_image', image: `data:image/png;base64,${data}` }]);
  });

  it('keeps text-only results as text in both frameworks', async () => {
    const { session, ws } = await open({});
    await writeFile(ws.path('note.txt'), 'hello\n');
    const [aiTools, agentsTools] = [await session.toAiSdkTools(), await session.toOpenAIAgentsTools()];
    const read = aiTools['Read'];
    const output = await read?.execute({ file_path: ws.path('note.txt') }, { toolCallId: 't1' });
    expect(output && read?.toModelOutput({ output })).toMatchObject({ type: 'text' });
    const agentsRead = agentsTools.find((tool) => tool.name === 'Read');
    const text = await agentsRead?.invoke({}, JSON.stringify({ file_path: ws.path('note.txt') }));
    expect(typeof text === 'string' && text.includes('hello')).toBe(true);
  });
});

describe('toOpenAIAgentsTools under the real OpenAI Agents runner', { timeout: 30_000 }, () => {
  it('runs two writing Bash calls one after the other and keeps a cd', async () => {
    const { session, ws } = await open({ permissions: { allow: ['Bash'] } });
    const model = agentsModel([
      writingCalls,
      [{ id: 'c1', name: 'Bash', input: { command: 'cd sub' } }],
      [{ id: 'c2', name: 'Bash', input: { command: 'pwd' } }],
      'done',
    ]);
    const agent = new Agent({
      name: 'efferent',
      instructions: 'Use the tools.',
      model,
      tools: await session.toOpenAIAgentsTools(),
    });
    const result = await run(agent, 'write twice, then cd');
    expect(result.finalOutput).toBe('done');
    const order = (await readFile(ws.path('order.log'), 'utf8')).trim().split('\n');
    expect(order).toEqual(['start-1', 'end-1', 'start-2', 'end-2']);
    expect(JSON.stringify(model.requests.at(-1))).toContain(ws.path('sub'));
  });

  it('interrupts for approval when efferent would ask, and runs the approved call once', async () => {
    const { session, ws } = await open({});
    const write = { file_path: `${ws.dir}/approved.txt`, content: 'yes\n' };
    const model = agentsModel([[{ id: 'a1', name: 'Write', input: write }], 'written']);
    const agent = new Agent({
      name: 'efferent',
      instructions: 'Use the tools.',
      model,
      tools: await session.toOpenAIAgentsTools({ needsApproval: true }),
    });
    const first = await run(agent, 'write');
    expect(first.interruptions).toHaveLength(1);
    await expect(readFile(ws.path('approved.txt'), 'utf8')).rejects.toThrow();
    const interruption = first.interruptions[0];
    if (!interruption) throw new Error('no interruption');
    first.state.approve(interruption);
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('written');
    expect(await readFile(ws.path('approved.txt'), 'utf8')).toBe('yes\n');
  });
});
