import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, startLoopbackServer } from '../providers/loopback.ts';

const bin = resolve(import.meta.dirname, '../../bin/efferent.js');
const fixture = resolve(import.meta.dirname, 'fixtures/claude-stream-json.jsonl');
let workspace: string;
/** The user's home: a folder of its own, since a home inside the project is refused as one it chose. */
let home: string;
let server: LoopbackServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'efferent-sj-'));
  home = await mkdtemp(join(tmpdir(), 'efferent-home-'));
  await writeFile(join(workspace, 'notes.txt'), 'the answer is 42\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `efferent run ARGS` (or a shell pipeline around it) with stdin text, against the loopback server. */
function efferent(args: string[], stdin = '', shellPipe?: string): Promise<Run> {
  const env = {
    PATH: process.env['PATH'],
    HOME: home,
    NO_COLOR: '1',
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server?.url ?? '',
  };
  const command = [
    process.execPath,
    bin,
    'run',
    '--cwd',
    workspace,
    '--model',
    'anthropic:claude-sonnet-4-5',
    ...args,
  ];
  const child = shellPipe
    ? spawn(
        'bash',
        ['-c', `${command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')} ${shellPipe}`],
        {
          env,
          cwd: workspace,
        },
      )
    : spawn(command[0] as string, command.slice(1), { env, cwd: workspace });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(stdin);
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

// biome-ignore lint/suspicious/noExplicitAny: JSON lines
type Line = Record<string, any>;
const lines = (text: string): Line[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

const jsonType = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/** Every key of `expected` is in `actual` with the same JSON type, recursively (arrays by their first item). */
function sameShape(expected: unknown, actual: unknown, path: string): string[] {
  if (jsonType(expected) !== jsonType(actual))
    return [`${path}: ${jsonType(expected)} expected, ${jsonType(actual)} found`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length === 0 || actual.length === 0) return [];
    return sameShape(expected[0], actual[0], `${path}[0]`);
  }
  if (jsonType(expected) !== 'object') return [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(expected as Record<string, unknown>)) {
    // modelUsage is keyed by model id; compare the one entry.
    if (path.endsWith('.modelUsage')) {
      problems.push(
        ...sameShape(value, Object.values(actual as Record<string, unknown>)[0], `${path}.<model>`),
      );
      continue;
    }
    if (!(key in (actual as Record<string, unknown>))) problems.push(`${path}.${key}: missing`);
    else problems.push(...sameShape(value, (actual as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return problems;
}

const readAndAnswer = () => [
  {
    chunks: anthropicSse({
      text: 'Reading the notes.',
      toolCalls: [{ id: 'toolu_01', name: 'Read', input: { file_path: join(workspace, 'notes.txt') } }],
      usage: { input: 4, output: 30, cacheWrite: 1841, cacheRead: 12027 },
    }),
  },
  { chunks: anthropicSse({ text: 'The answer is 42.', usage: { input: 6, output: 9, cacheRead: 13868 } }) },
];

describe('efferent run -p --output-format stream-json (Claude Code compatible)', { timeout: 60_000 }, () => {
  it('matches the recorded claude -p stream-json transcript line by line', async () => {
    server = await startLoopbackServer(readAndAnswer());
    const run = await efferent(['-p', 'What is the answer?', '--output-format', 'stream-json', '--verbose']);
    expect(run.code).toBe(0);
    const ours = lines(run.stdout);
    const recorded = lines(await readFile(fixture, 'utf8'));
    expect(
      ours.map((line) => [line['type'], line['subtype'] ?? line['message']?.content?.[0]?.type]),
    ).toEqual(recorded.map((line) => [line['type'], line['subtype'] ?? line['message']?.content?.[0]?.type]));
    recorded.forEach((expected, index) => {
      expect(sameShape(expected, ours[index], `line ${index + 1}`)).toEqual([]);
    });
    const [init, text, toolUse, toolResult, , result] = ours as [Line, Line, Line, Line, Line, Line];
    expect(init).toMatchObject({ cwd: workspace, model: 'claude-sonnet-4-5', permissionMode: 'default' });
    expect(init['tools']).toContain('Read');
    expect(text['message']['id']).toBe(toolUse['message']['id']);
    expect(toolUse['message']['content'][0]).toEqual({
      type: 'tool_use',
      id: 'toolu_01',
      name: 'Read',
      input: { file_path: join(workspace, 'notes.txt') },
    });
    expect(toolResult['message']['content'][0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_01',
    });
    expect(toolResult['message']['content'][0]['content']).toContain('the answer is 42');
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      num_turns: 2,
      result: 'The answer is 42.',
      session_id: init['session_id'],
      usage: {
        input_tokens: 10,
        output_tokens: 39,
        cache_read_input_tokens: 25895,
        cache_creation_input_tokens: 1841,
      },
      permission_denials: [],
    });
    expect(result['modelUsage']['claude-sonnet-4-5']).toMatchObject({ inputTokens: 10, outputTokens: 39 });
    expect(result['total_cost_usd']).toBeGreaterThan(0);
    for (const line of ours) expect(line['session_id']).toBe(init['session_id']);
  });

  it('--include-partial-messages adds the raw API stream events before each message', async () => {
    server = await startLoopbackServer(readAndAnswer());
    const run = await efferent(['-p', 'go', '--output-format', 'stream-json', '--include-partial-messages']);
    expect(run.code).toBe(0);
    const ours = lines(run.stdout);
    const firstAssistant = ours.findIndex((line) => line['type'] === 'assistant');
    const events = ours.slice(0, firstAssistant).filter((line) => line['type'] === 'stream_event');
    const types = events.map((line) => line['event']['type']);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.at(-2)).toBe('message_delta');
    const toolStart = events.find((line) => line['event']['content_block']?.type === 'tool_use');
    expect(toolStart?.['event']).toMatchObject({
      index: 1,
      content_block: { id: 'toolu_01', name: 'Read', input: {} },
    });
    const json = events
      .filter((line) => line['event']['delta']?.type === 'input_json_delta')
      .map((line) => line['event']['delta']['partial_json'])
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: join(workspace, 'notes.txt') });
    const textDeltas = events.filter((line) => line['event']['delta']?.type === 'text_delta');
    expect(textDeltas.map((line) => line['event']['delta']['text']).join('')).toBe('Reading the notes.');
  });

  it('lists denied calls in permission_denials', async () => {
    const target = join(workspace, 'out.txt');
    server = await startLoopbackServer([
      {
        chunks: anthropicSse({
          toolCalls: [{ id: 'toolu_w', name: 'Write', input: { file_path: target, content: 'x' } }],
        }),
      },
      { chunks: anthropicSse({ text: 'Could not write.' }) },
    ]);
    const run = await efferent(['-p', 'write', '--output-format', 'json']);
    const result = JSON.parse(run.stdout) as Line;
    expect(result['permission_denials']).toEqual([
      { tool_name: 'Write', tool_use_id: 'toolu_w', tool_input: { file_path: target, content: 'x' } },
    ]);
  });

  it('reads the prompt from stdin when -p has none', async () => {
    server = await startLoopbackServer([{ chunks: anthropicSse({ text: 'Hello from stdin.' }) }]);
    const run = await efferent(['-p'], 'say hello\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Hello from stdin.\n');
    const messages = server.requests[0]?.body['messages'] as Array<{ content: Array<{ text: string }> }>;
    expect(messages[0]?.content[0]?.text).toBe('say hello');
  });

  it('--input-format stream-json reads user messages from stdin, one result per message, one conversation', async () => {
    server = await startLoopbackServer([
      { chunks: anthropicSse({ text: 'First answer.' }) },
      { chunks: anthropicSse({ text: 'Second answer.' }) },
    ]);
    const input = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'first question' } }),
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      }),
    ].join('\n');
    const run = await efferent(
      ['--input-format', 'stream-json', '--output-format', 'stream-json', '-p'],
      `${input}\n`,
    );
    expect(run.code).toBe(0);
    const results = lines(run.stdout).filter((line) => line['type'] === 'result');
    expect(results.map((line) => line['result'])).toEqual(['First answer.', 'Second answer.']);
    const second = server.requests[1]?.body['messages'] as Array<{ role: string }>;
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a reader that closes the pipe (| head -1) ends the run quietly', async () => {
    server = await startLoopbackServer(readAndAnswer());
    const run = await efferent(
      ['-p', 'go', '--output-format', 'stream-json', '--include-partial-messages'],
      '',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
      '2>stderr.txt | head -1; echo "efferent=${PIPESTATUS[0]}"',
    );
    const stderr = await readFile(join(workspace, 'stderr.txt'), 'utf8');
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    const [first, status] = run.stdout.trim().split('\n');
    expect(JSON.parse(first ?? '{}')).toMatchObject({ type: 'system', subtype: 'init' });
    expect(status).toBe('efferent=0');
  });
});
