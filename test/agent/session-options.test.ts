import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, type Session, type SessionOptions } from '../../src/agent/index.ts';
import { buildTool, toolResultText } from '../../src/core/index.ts';
import type { ToolErrorCall } from '../../src/pipeline/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let workspace: TempWorkspace | undefined;
const sessions: Session[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await workspace?.dispose();
  workspace = undefined;
});

async function open(options: Partial<SessionOptions> = {}, settings: unknown = {}) {
  workspace ??= await createTempWorkspace({
    files: { '.efferent/settings.json': JSON.stringify(settings), 'notes.txt': 'hello\n' },
  });
  const session = await createSession({ cwd: workspace.dir, home: workspace.dir, ...options });
  sessions.push(session);
  return { session, ws: workspace };
}

const wordCount = buildTool({
  name: 'WordCount',
  inputSchema: z.strictObject({ text: z.string() }),
  prompt: 'Counts words.',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async call(input) {
    return { data: String(input.text.split(/\s+/).filter(Boolean).length) };
  },
});

describe('createSession checks its options', () => {
  it('refuses a working directory that does not exist, or is a file, naming the fix', async () => {
    await expect(createSession({ cwd: '/does/not/exist' })).rejects.toThrow(
      /\/does\/not\/exist cannot be used .*Pass an existing directory as `cwd`\.$/,
    );
    workspace = await createTempWorkspace({ files: { 'file.txt': 'x' } });
    await expect(createSession({ cwd: workspace.path('file.txt'), home: workspace.dir })).rejects.toThrow(
      /is not a directory\. Pass an existing directory/,
    );
  });

  it('builds the pool by inclusion: built-ins by name or alias, and tool objects', async () => {
    const { session, ws } = await open({ tools: ['Read', 'Glob', wordCount] });
    expect(session.tools.map((tool) => tool.name).sort()).toEqual(['Glob', 'Read', 'WordCount']);
    const counted = await session.callTool('WordCount', { text: 'one two three' });
    expect(toolResultText(counted)).toBe('3');
    const bash = await session.callTool('Bash', { command: 'echo hi' });
    expect(bash.isError).toBe(true);
    expect(toolResultText(bash)).toMatch(/Bash/);
    expect(toolResultText(await session.callTool('Read', { file_path: ws.path('notes.txt') }))).toContain(
      'hello',
    );
    await expect(open({ tools: ['Raed'] })).rejects.toThrow(
      /no built-in tool is named Raed\. Built-ins: .*Read/,
    );
  });

  it('refuses a custom tool named like a built-in, and lets it replace one that is left out', async () => {
    const myRead = buildTool({
      name: 'Read',
      inputSchema: z.strictObject({ file_path: z.string() }),
      prompt: 'Reads, politely.',
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async call() {
        return { data: 'my read' };
      },
    });
    await expect(open({ extraTools: [myRead] })).rejects.toThrow(
      /your tool Read has the name of the built-in Read\. Rename it, or replace the built-in/,
    );
    await expect(open({ tools: ['Glob', wordCount, wordCount, { ...wordCount }] })).rejects.toThrow(
      /two tools are named WordCount/,
    );
    const { session } = await open({ tools: ['Glob', myRead] }, { permissions: { allow: ['Read'] } });
    expect(session.tools.filter((tool) => tool.name === 'Read')).toHaveLength(1);
    expect(toolResultText(await session.callTool('Read', { file_path: 'x' }))).toBe('my read');
  });
});

describe('createSession callbacks', () => {
  it('hands a throwing tool’s error, stack included, to onToolError', async () => {
    const errors: Array<{ error: unknown; call: ToolErrorCall }> = [];
    const broken = buildTool({
      name: 'Broken',
      inputSchema: z.strictObject({}),
      prompt: 'Always throws.',
      isReadOnly: () => true,
      async call() {
        throw new TypeError('cannot read properties of undefined');
      },
    });
    const { session } = await open(
      { extraTools: [broken], onToolError: (error, call) => errors.push({ error, call }) },
      { permissions: { allow: ['Broken'] } },
    );
    const result = await session.callTool('Broken', {}, { id: 'b1' });
    expect(result.isError).toBe(true);
    expect(toolResultText(result)).not.toContain('at ');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.call).toEqual({ toolName: 'Broken', toolUseId: 'b1', input: {}, kind: 'tool_error' });
    expect(errors[0]?.error).toBeInstanceOf(TypeError);
    expect(String((errors[0]?.error as Error | undefined)?.stack)).toContain('session-options.test.ts');
  });

  it('runs in-process hooks given to createSession', async () => {
    const seen: string[] = [];
    const { session } = await open(
      {
        hooks: [
          {
            event: 'PreToolUse',
            matcher: 'Bash',
            callback: (input) => {
              seen.push(String((input['tool_input'] as { command?: string }).command));
              return { decision: 'block', reason: 'no shell in this test' };
            },
          },
        ],
      },
      { permissions: { allow: ['Bash(echo *)'] } },
    );
    const blocked = await session.callTool('Bash', { command: 'echo hi' });
    expect(blocked.isError).toBe(true);
    expect(toolResultText(blocked)).toContain('no shell in this test');
    expect(seen).toEqual(['echo hi']);
  });

  it('keeps "always allow" for the session with persistRules: false, or hands it to a store', async () => {
    const always = async () => ({ choice: 'allow-always' as const });
    const { session, ws } = await open({ askUser: always, persistRules: false });
    const written = await session.callTool('Write', { file_path: ws.path('a.txt'), content: 'a\n' });
    expect(written.isError ?? false).toBe(false);
    expect(existsSync(ws.path('.efferent/settings.local.json'))).toBe(false);
    expect((await session.wouldAsk('Write', { file_path: ws.path('b.txt'), content: 'b' })).behavior).toBe(
      'allow',
    );

    const stored: string[][] = [];
    const { session: other } = await open({
      askUser: always,
      persistRules: async (_root, rules) => {
        stored.push(rules);
        return rules;
      },
    });
    await other.callTool('Bash', { command: 'make build' });
    expect(stored).toEqual([['Bash(make build *)']]);
    expect(existsSync(ws.path('.efferent/settings.local.json'))).toBe(false);
  });
});

describe('a session left undisposed', () => {
  it('lets the process exit after using the REPL', async () => {
    workspace = await createTempWorkspace();
    const script = workspace.path('forgot-dispose.mts');
    await writeFile(
      script,
      `import { createSession } from ${JSON.stringify(join(root, 'src/index.ts'))};
const session = await createSession({ cwd: ${JSON.stringify(workspace.dir)}, home: ${JSON.stringify(workspace.dir)}, askUser: async () => ({ choice: 'allow-once' }) });
const result = await session.callTool('REPL', { code: 'globalThis.x = 20; x + 1' });
console.log(JSON.stringify(result.content));
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((done) => child.on('exit', (exit) => done(exit)));
    clearTimeout(timer);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('21');
    expect(await readFile(script, 'utf8')).toContain('createSession');
  }, 90_000);
});
