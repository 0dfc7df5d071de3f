import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, openaiSse, startLoopbackServer } from '../providers/loopback.ts';

const bin = resolve(import.meta.dirname, '../../bin/efferent.js');
let workspace: string;
/** The user's home: a folder of its own, since a home inside the project is refused as one it chose. */
let home: string;
let server: LoopbackServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'efferent-run-'));
  home = await mkdtemp(join(tmpdir(), 'efferent-home-'));
  await writeFile(join(workspace, 'notes.txt'), 'the answer is 42\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

/** A clean environment: no real keys, no user settings, only what the test sets. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: home, NO_COLOR: '1', ...extra };
}

function start(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [bin, 'run', '--cwd', workspace, ...args], {
    env: cleanEnv(env),
    cwd: workspace,
  });
}

async function finish(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { code, stdout, stderr };
}

/** Collects output and resolves when it contains `text` (the nth time). */
function watch(child: ChildProcessWithoutNullStreams) {
  let output = '';
  const waiters: Array<{ text: string; count: number; done: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of [...waiters]) {
      if (output.split(waiter.text).length - 1 >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  });
  return {
    output: () => output,
    until: (text: string, count = 1) =>
      new Promise<void>((done, fail) => {
        if (output.split(text).length - 1 >= count) return done();
        const timer = setTimeout(
          () => fail(new Error(`timed out waiting for ${text}; output:\n${output}`)),
          15_000,
        );
        waiters.push({
          text,
          count,
          done: () => {
            clearTimeout(timer);
            done();
          },
        });
      }),
  };
}

describe('efferent run -p (headless)', () => {
  it('json: runs a tool through the real pipeline against an Anthropic-compatible server', async () => {
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          text: 'Reading the notes.',
          toolCalls: [{ id: 'toolu_01', name: 'Read', input: { file_path: join(workspace, 'notes.txt') } }],
          usage: { input: 1000, output: 100 },
        }),
      },
      { chunks: anthropicSse({ text: 'The answer is 42.', usage: { input: 1500, output: 20 } }) },
    ]);
    const child = start(
      ['-p', 'What is the answer?', '--model', 'anthropic:claude-sonnet-4-5', '--output-format', 'json'],
      {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
      },
    );
    const { code, stdout } = await finish(child);
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(record).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'The answer is 42.',
      num_turns: 2,
      usage: { input_tokens: 2500, output_tokens: 120 },
    });
    expect(record.total_cost_usd).toBeCloseTo(2500 * 3e-6 + 120 * 15e-6, 8);
    const second = server.requests[1]?.body['messages'] as Array<{ content: Array<Record<string, unknown>> }>;
    expect(second[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
    expect(String(second[2]?.content[0]?.['content'])).toContain('the answer is 42');
  });

  it('stream-json: Claude Code envelopes with tool results in call order (OpenAI-compatible)', async () => {
    server = await startLoopbackServer([
      {
        chunks: openaiSse({
          toolCalls: [
            { id: 'call_1', name: 'Read', input: { file_path: join(workspace, 'notes.txt') } },
            { id: 'call_2', name: 'Glob', input: { pattern: '*.txt' } },
          ],
        }),
      },
      { chunks: openaiSse({ text: 'Done.' }) },
    ]);
    const child = start(['-p', 'look', '--model', 'openai:gpt-4.1', '--output-format', 'stream-json'], {
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
    const { code, stdout } = await finish(child);
    expect(code).toBe(0);
    // biome-ignore lint/suspicious/noExplicitAny: reading JSON lines
    type Line = Record<string, any>;
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', model: 'gpt-4.1' });
    const calls = lines
      .filter((line) => line['type'] === 'assistant')
      .flatMap((line) => line['message']['content'])
      .filter((block: Line) => block['type'] === 'tool_use')
      .map((block: Line) => block['id']);
    expect(calls).toEqual(['call_1', 'call_2']);
    const results = lines
      .filter((line) => line['type'] === 'user')
      .flatMap((line) => line['message']['content'])
      .map((block: Line) => block['tool_use_id']);
    expect(results).toEqual(['call_1', 'call_2']);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });
  });

  it('text: prints the final answer only', async () => {
    server = await startLoopbackServer([{ chunks: openaiSse({ text: 'Hello there.' }) }]);
    const child = start(['-p', 'hi', '--model', 'openai:local-model'], {
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
    const { code, stdout } = await finish(child);
    expect(code).toBe(0);
    expect(stdout).toBe('Hello there.\n');
  });

  it('a missing key is one clear line and a non-zero exit', async () => {
    const { code, stdout, stderr } = await finish(
      start(['-p', 'hi', '--model', 'anthropic:claude-sonnet-4-5'], {}),
    );
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('ANTHROPIC_API_KEY');
  });
});

describe('efferent run (interactive)', () => {
  it('asks before a write, honours "allow once" and "deny", and exits at end of input', async () => {
    const target = join(workspace, 'out.txt');
    const denied = join(workspace, 'denied.txt');
    const session = [
      {
        events: [
          { type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: target, content: 'written\n' } },
        ],
      },
      { events: [{ type: 'text_delta', text: 'Wrote it.' }] },
      {
        events: [
          { type: 'tool_use', id: 'w2', name: 'Write', input: { file_path: denied, content: 'no\n' } },
        ],
      },
      { events: [{ type: 'text_delta', text: 'Understood, not written.' }] },
    ];
    await writeFile(join(workspace, 'session.jsonl'), session.map((turn) => JSON.stringify(turn)).join('\n'));
    const child = start(['--model', 'replay:session.jsonl'], {});
    const result = finish(child);
    const screen = watch(child);
    child.stdin.write('write the file\n');
    await screen.until('Choose 1-4:');
    expect(screen.output()).toContain('Permission needed: Write');
    child.stdin.write('1\n');
    await screen.until('Wrote it.');
    child.stdin.write('write another\n');
    await screen.until('Choose 1-4:', 2);
    child.stdin.write('4\n');
    await screen.until('Understood, not written.');
    child.stdin.end();
    const { code } = await result;
    expect(code).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('written\n');
    await expect(readFile(denied, 'utf8')).rejects.toThrow();
  });

  it('asks once whether to trust a folder with its own settings, then applies and remembers them', async () => {
    const home = await mkdtemp(join(tmpdir(), 'efferent-home-'));
    try {
      const target = join(workspace, 'out.txt');
      await mkdir(join(workspace, '.efferent'));
      await writeFile(
        join(workspace, '.efferent', 'settings.json'),
        JSON.stringify({ permissions: { allow: ['Write'] } }),
      );
      const session = [
        {
          events: [
            { type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: target, content: 'ok\n' } },
          ],
        },
        { events: [{ type: 'text_delta', text: 'Wrote it.' }] },
      ];
      await writeFile(
        join(workspace, 'session.jsonl'),
        session.map((turn) => JSON.stringify(turn)).join('\n'),
      );
      const child = start(['--model', 'replay:session.jsonl'], { HOME: home });
      const result = finish(child);
      const screen = watch(child);
      await screen.until('Trust it? [y/N]');
      child.stdin.write('y\n');
      child.stdin.write('write the file\n');
      await screen.until('Wrote it.');
      child.stdin.end();
      expect((await result).code).toBe(0);
      // The project's allow rule applied: no permission question was needed.
      expect(screen.output()).not.toContain('Permission needed');
      expect(await readFile(target, 'utf8')).toBe('ok\n');
      const store = JSON.parse(await readFile(join(home, '.efferent', 'trusted-workspaces.json'), 'utf8'));
      expect(store.trusted).toHaveLength(1);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('Ctrl+C interrupts the running turn, and Ctrl+C at the prompt exits', async () => {
    const session = [
      {
        events: [
          { type: 'text_delta', text: 'Thinking for a long time' },
          { type: 'text_delta', text: ' and more', wait: 20_000 },
        ],
      },
    ];
    await writeFile(join(workspace, 'slow.jsonl'), session.map((turn) => JSON.stringify(turn)).join('\n'));
    const child = start(['--model', 'replay:slow.jsonl'], {});
    const result = finish(child);
    const screen = watch(child);
    await screen.until('> ');
    child.stdin.write('go\n');
    await screen.until('Thinking for a long time');
    child.kill('SIGINT');
    await screen.until('Interrupted (Ctrl+C).');
    await screen.until('(aborted');
    child.kill('SIGINT');
    const { code } = await result;
    expect(code).toBe(0);
  });
});
