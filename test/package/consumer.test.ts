import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A consumer project: the packed tarball installed into a temporary project, its dependencies
 * linked from this checkout's node_modules (no network), type-checked with tsc against the README's
 * library snippets and run: session.run, wouldAsk, approvals asked later, both adapters under their
 * real frameworks, CommonJS require, and a process that ends without dispose().
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let project = '';

function run(command: string, args: string[], cwd: string) {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, HOME: cwd },
  });
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'efferent-consumer-'));
  if (!existsSync(join(root, 'dist', 'bundle', 'index.js')))
    execFileSync('npm', ['run', 'build'], { cwd: root });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], {
      cwd: root,
      encoding: 'utf8',
    }),
  ) as Array<{ filename: string }>;
  const tarball = join(project, packed[0]?.filename ?? '');
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'efferent'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'efferent'), '--strip-components=1']);
  // Every other package is linked from this checkout, as an offline install would place it.
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === 'efferent' || entry === '.bin' || entry.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  // The README's snippets use two packages this checkout does not install; their shapes are stubbed.
  mkdirSync(join(project, 'stubs'), { recursive: true });
  writeFileSync(
    join(project, 'stubs', 'ai-sdk-anthropic.d.ts'),
    "declare module '@ai-sdk/anthropic' { export function anthropic(model: string): import('ai').LanguageModel; }\n",
  );
  writeFileSync(
    join(project, 'stubs', 'openai-agents.d.ts'),
    "declare module '@openai/agents' { export * from '@openai/agents-core'; }\n",
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        lib: ['es2023', 'esnext.disposable'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['*.ts', 'stubs/*.d.ts'],
    }),
  );
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const library = readme.slice(readme.indexOf('## The library'), readme.indexOf('## Settings'));
  const blocks = [...library.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  blocks.forEach((block, index) => {
    const header = block.includes('createSession(')
      ? ''
      : "import type { Session } from 'efferent';\ndeclare const session: Session;\n";
    writeFileSync(join(project, `readme-${index + 1}.ts`), `${header}${block}\nexport {};\n`);
  });
  writeFileSync(join(project, 'scenario.ts'), scenario);
  writeFileSync(
    join(project, 'require.cjs'),
    "const efferent = require('efferent');\nconst testing = require('efferent/testing');\nconsole.log(typeof efferent.createSession, typeof testing.turn);\n",
  );
}, 300_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

const scenario = `import { readFile } from 'node:fs/promises';
import { Agent, type Model, run, setTracingDisabled, Usage } from '@openai/agents-core';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { askLater, createSession, type RunEvent } from 'efferent';
import { createScriptedProvider, createTempWorkspace, turn } from 'efferent/testing';

setTracingDisabled(true);
const workspace = await createTempWorkspace({ files: { 'notes.txt': 'hello\\n' } });
const home = workspace.dir;

// session.run with flat events, never disposed: the process must still end.
const session = await createSession({ cwd: workspace.dir, home, askUser: askLater });
const events: RunEvent['type'][] = [];
const first = session.run({
  provider: createScriptedProvider([
    turn().tool('Read', { file_path: workspace.path('notes.txt') }).tool('Write', { file_path: workspace.path('out.txt'), content: 'ok\\n' }, { id: 'w1' }),
    turn().text('Written.'),
  ], { timeScale: 0 }),
  prompt: 'copy',
});
for await (const event of first) events.push(event.type);
const stopped = await first.result;
console.log('run', stopped.reason, events.includes('approval_deferred'));
console.log('wouldAsk', (await session.wouldAsk('Bash', { command: 'rm -rf x' })).behavior);
const pending = JSON.parse(JSON.stringify(stopped.pending));
const resumed = await session.run({
  provider: createScriptedProvider([turn().text('Written.')], { timeScale: 0 }),
  resume: pending,
  answers: { w1: { choice: 'allow-once' } },
}).result;
console.log('resume', resumed.finalText, (await readFile(workspace.path('out.txt'), 'utf8')).trim());

// The AI SDK adapter under the real AI SDK.
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV3({
  doGenerate: [
    { content: [{ type: 'tool-call', toolCallId: 'g1', toolName: 'Glob', input: JSON.stringify({ pattern: '*.txt' }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
    { content: [{ type: 'text', text: 'globbed' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
  ],
});
const ai = await generateText({ model, tools: await session.toAiSdkTools(), prompt: 'list', stopWhen: stepCountIs(3) });
console.log('ai', ai.text, JSON.stringify(ai.steps[0]?.toolResults[0]?.output).includes('notes.txt'));

// The OpenAI Agents adapter under the real runner.
let calls = 0;
const agentsModel: Model = {
  async getResponse() {
    calls += 1;
    return {
      usage: new Usage(),
      output: calls === 1
        ? [{ type: 'function_call', callId: 'o1', name: 'Read', arguments: JSON.stringify({ file_path: workspace.path('notes.txt') }), status: 'completed' }]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'read' }] }],
    };
  },
  getStreamedResponse() {
    throw new Error('not streamed');
  },
};
const agent = new Agent({ name: 'consumer', instructions: 'Use the tools.', model: agentsModel, tools: await session.toOpenAIAgentsTools() });
console.log('agents', (await run(agent, 'read')).finalOutput);
await workspace.dispose();
`;

describe('the packed package in a consumer project', { timeout: 300_000 }, () => {
  it('type-checks the README library snippets and the scenario with tsc', () => {
    const tsc = run(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'],
      project,
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('runs session.run, wouldAsk, a resumed approval and both adapters, then exits without dispose', () => {
    const result = run(process.execPath, ['--import', 'tsx', 'scenario.ts'], project);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'run awaiting_approval true',
      'wouldAsk ask',
      'resume Written. ok',
      'ai globbed true',
      'agents read',
    ]);
  });

  it('loads with require() from CommonJS', () => {
    const result = run(process.execPath, ['require.cjs'], project);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('function function');
  });
});
