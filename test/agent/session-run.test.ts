import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  askLater,
  createSession,
  type PendingApproval,
  type RunEvent,
  type Session,
  type SessionOptions,
} from '../../src/agent/index.ts';
import {
  buildTool,
  type ModelRequest,
  type PermissionPrompt,
  type ToolResultBlock,
  toolResultText,
} from '../../src/core/index.ts';
import {
  createScriptedProvider,
  createTempWorkspace,
  type TempWorkspace,
  turn,
} from '../../src/testing/index.ts';

let workspace: TempWorkspace | undefined;
const sessions: Session[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await workspace?.dispose();
  workspace = undefined;
});

async function open(
  settings: unknown,
  options: Partial<SessionOptions> = {},
  files: Record<string, string> = {},
): Promise<{ session: Session; ws: TempWorkspace }> {
  workspace ??= await createTempWorkspace({
    files: { '.efferent/settings.json': JSON.stringify(settings), 'notes.txt': 'hello\n', ...files },
  });
  const session = await createSession({ cwd: workspace.dir, home: workspace.dir, ...options });
  sessions.push(session);
  return { session, ws: workspace };
}

function resultsSent(request: ModelRequest | undefined): ToolResultBlock[] {
  const last = request?.messages.at(-1);
  return (last?.content ?? []).filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('session.run', { timeout: 30_000 }, () => {
  it('streams flat events and resolves its result, with the session’s tools and pipeline', async () => {
    const { session, ws } = await open({});
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider(
      [
        turn()
          .text('Reading.')
          .tool('Read', { file_path: ws.path('notes.txt') }, { id: 'r1' }),
        turn().text('It says hello.'),
      ],
      { timeScale: 0, onRequest: (request) => requests.push(request) },
    );
    const run = session.run({ provider, prompt: 'What does notes.txt say?' });
    const events: RunEvent[] = [];
    for await (const event of run) events.push(event);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('turn_start');
    expect(types.at(-1)).toBe('done');
    const text = events.filter((event) => event.type === 'text_delta');
    expect(text.map((event) => (event.type === 'text_delta' ? `${event.turn}:${event.text}` : ''))).toEqual([
      '1:Reading.',
      '2:It says hello.',
    ]);
    const result = events.find((event) => event.type === 'tool_result');
    expect(result?.type === 'tool_result' && toolResultText(result.result)).toContain('hello');
    const done = await run.result;
    expect(done.reason).toBe('end_turn');
    expect(done.finalText).toBe('It says hello.');
    expect(done.turns).toBe(2);
    expect(toolResultText(resultsSent(requests[1])[0] as ToolResultBlock)).toContain('hello');
  });

  it('applies the session’s per-turn result budget without being told', async () => {
    const bulky = buildTool({
      name: 'Bulky',
      inputSchema: z.strictObject({ size: z.number() }),
      prompt: 'Returns that many characters.',
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async call(input) {
        return { data: `${input.size}:`.padEnd(input.size, 'x') };
      },
    });
    const { session } = await open({ permissions: { allow: ['Bulky'] } }, { extraTools: [bulky] });
    const first = turn();
    for (const size of [45_000, 48_000, 44_000, 47_000, 46_000]) first.tool('Bulky', { size });
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider([first, turn().text('ok')], {
      timeScale: 0,
      onRequest: (request) => requests.push(request),
    });
    const done = await session.run({ provider, prompt: 'go' }).result;
    expect(done.reason).toBe('end_turn');
    const sent = resultsSent(requests[1]);
    expect(sent).toHaveLength(5);
    const total = sent.reduce((sum, block) => sum + toolResultText(block).length, 0);
    expect(total).toBeLessThanOrEqual(200_000);
    expect(sent.some((block) => toolResultText(block).includes('<persisted-output>'))).toBe(true);
  });

  it('keeps a cd made during the run for the session’s next call', async () => {
    const { session, ws } = await open(
      { permissions: { allow: ['Bash(mkdir *)', 'Bash(cd *)', 'Bash(pwd)'] } },
      {},
      { 'sub/marker.txt': 'x' },
    );
    const provider = createScriptedProvider(
      [turn().tool('Bash', { command: 'cd sub' }), turn().text('moved')],
      {
        timeScale: 0,
      },
    );
    const done = await session.run({ provider, prompt: 'go to sub' }).result;
    expect(done.context.run.cwd).toBe(ws.path('sub'));
    expect(session.context.run.cwd).toBe(ws.path('sub'));
    const pwd = await session.callTool('Bash', { command: 'pwd' });
    expect(toolResultText(pwd).trim()).toBe(ws.path('sub'));
  });

  it('keeps a cd made by callTool for the next call', async () => {
    const { session, ws } = await open(
      { permissions: { allow: ['Bash(cd *)', 'Bash(pwd)'] } },
      {},
      { 'sub/marker.txt': 'x' },
    );
    await session.callTool('Bash', { command: 'cd sub' });
    const pwd = await session.callTool('Bash', { command: 'pwd' });
    expect(toolResultText(pwd).trim()).toBe(ws.path('sub'));
  });

  it('stops the run when the consumer stops reading', async () => {
    const { session, ws } = await open({});
    const provider = createScriptedProvider(
      [
        turn()
          .text('one')
          .tool('Read', { file_path: ws.path('notes.txt') }),
        turn().text('two'),
      ],
      { timeScale: 0 },
    );
    const run = session.run({ provider, prompt: 'go' });
    for await (const event of run) if (event.type === 'text_delta') break;
    expect((await run.result).reason).toBe('aborted');
  });

  it('refuses a run without a prompt, with the fix in the message', async () => {
    const { session } = await open({});
    const provider = createScriptedProvider([], { timeScale: 0 });
    expect(() => session.run({ provider })).toThrow(/needs a prompt/);
  });
});

describe('session.wouldAsk', () => {
  it('answers allow, ask or deny with a trace, and never prompts', async () => {
    const prompts: PermissionPrompt[] = [];
    const { session, ws } = await open(
      { permissions: { deny: ['Read(./secret.txt)'] } },
      {
        askUser: async (prompt) => {
          prompts.push(prompt);
          return { choice: 'allow-once' };
        },
      },
    );
    const read = await session.wouldAsk('Read', { file_path: ws.path('notes.txt') });
    expect(read.behavior).toBe('allow');
    expect(read.ask).toBe(false);
    const remove = await session.wouldAsk('Bash', { command: 'rm -rf build' });
    expect(remove.behavior).toBe('ask');
    expect(remove.ask).toBe(true);
    expect(remove.trace.length).toBeGreaterThan(0);
    expect(remove.message).toBeTruthy();
    const secret = await session.wouldAsk('Read', { file_path: ws.path('secret.txt') });
    expect(secret.behavior).toBe('deny');
    expect(secret.trace.some((step) => step.stage === 'rule' && step.outcome === 'deny')).toBe(true);
    const unknown = await session.wouldAsk('Nope', {});
    expect(unknown.behavior).toBe('deny');
    expect(unknown.message).toMatch(/No tool named Nope/);
    const invalid = await session.wouldAsk('Read', { file_path: 42 });
    expect(invalid.behavior).toBe('deny');
    expect(prompts).toEqual([]);
    expect(existsSync(ws.path('.efferent/settings.local.json'))).toBe(false);
  });

  it('sees rules the session added after "allow for the session"', async () => {
    const { session, ws } = await open({}, { askUser: async () => ({ choice: 'allow-session' }) });
    const write = (name: string) => ({ file_path: ws.path(name), content: 'x\n' });
    expect((await session.wouldAsk('Write', write('a.txt'))).behavior).toBe('ask');
    const made = await session.callTool('Write', write('a.txt'));
    expect(made.isError ?? false).toBe(false);
    expect((await session.wouldAsk('Write', write('b.txt'))).behavior).toBe('allow');
  });
});

describe('approval asked later', () => {
  it('stops with a JSON pending state and resumes in a fresh session with the answer', async () => {
    const { session, ws } = await open({}, { askUser: askLater });
    const script = () => [
      turn()
        .tool('Read', { file_path: ws.path('notes.txt') }, { id: 'read1' })
        .tool('Write', { file_path: ws.path('out.txt'), content: 'approved\n' }, { id: 'write1' }),
      turn().text('Written.'),
    ];
    const first = session.run({
      provider: createScriptedProvider(script(), { timeScale: 0 }),
      prompt: 'write',
    });
    const events: RunEvent[] = [];
    for await (const event of first) events.push(event);
    const stopped = await first.result;
    expect(stopped.reason).toBe('awaiting_approval');
    expect(events.some((event) => event.type === 'approval_deferred')).toBe(true);
    expect(existsSync(ws.path('out.txt'))).toBe(false);
    const pending = JSON.parse(JSON.stringify(stopped.pending)) as PendingApproval;
    expect(pending.prompts.map((prompt) => prompt.toolUseId)).toEqual(['write1']);
    expect(pending.results.map((result) => result.toolUseId)).toEqual(['read1']);

    // Another process: a new session over the same folder, answering from the stored state.
    const { session: later } = await open({}, { askUser: askLater });
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider(script().slice(1), {
      timeScale: 0,
      onRequest: (request) => requests.push(request),
    });
    const resumed = await later.run({
      provider,
      resume: pending,
      answers: { write1: { choice: 'allow-once' } },
    }).result;
    expect(resumed.reason).toBe('end_turn');
    expect(resumed.finalText).toBe('Written.');
    expect(await readFile(ws.path('out.txt'), 'utf8')).toBe('approved\n');
    const sent = resultsSent(requests[0]);
    expect(sent.map((block) => block.toolUseId)).toEqual(['read1', 'write1']);
    expect(sent.every((block) => !block.isError)).toBe(true);
  });

  it('gives the model the denial when the later answer is deny', async () => {
    const { session, ws } = await open({}, { askUser: askLater });
    const provider = createScriptedProvider(
      [turn().tool('Write', { file_path: ws.path('out.txt'), content: 'x' }, { id: 'w' }), turn().text('ok')],
      { timeScale: 0 },
    );
    const stopped = await session.run({ provider, prompt: 'write' }).result;
    const requests: ModelRequest[] = [];
    const next = createScriptedProvider([turn().text('Understood.')], {
      timeScale: 0,
      onRequest: (request) => requests.push(request),
    });
    expect(() => session.run({ provider: next, resume: stopped.pending as PendingApproval })).toThrow(
      /missing: w \(Write\)/,
    );
    const resumed = await session.run({
      provider: next,
      resume: stopped.pending as PendingApproval,
      answers: { w: { choice: 'deny', feedback: 'not today' } },
    }).result;
    expect(resumed.finalText).toBe('Understood.');
    expect(existsSync(ws.path('out.txt'))).toBe(false);
    const [denied] = resultsSent(requests[0]);
    expect(denied?.isError).toBe(true);
    expect(toolResultText(denied as ToolResultBlock)).toContain('not today');
  });
});
