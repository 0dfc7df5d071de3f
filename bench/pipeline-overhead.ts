/**
 * What the 14-step pipeline costs per call, measured side by side in one run: a direct `tool.call()`
 * against `createToolRunner` bare, with in-process hooks, and with a real command hook (`sh -c`).
 * `npx tsx bench/pipeline-overhead.ts [--json]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createResultBudget } from '../src/budget/index.ts';
import { buildTool, createToolUseContext, type RunToolUse } from '../src/core/index.ts';
import { createHookRunner } from '../src/hooks/index.ts';
import { createToolNameResolver, createToolRunner } from '../src/pipeline/index.ts';
import { createCapturingTelemetry } from '../src/telemetry/index.ts';

const json = process.argv.includes('--json');
const dir = mkdtempSync(join(tmpdir(), 'efferent-bench-pipeline-'));
const context = createToolUseContext({ cwd: dir, sessionDir: join(dir, 'session') });
const tool = buildTool({
  name: 'Echo',
  inputSchema: z.object({ text: z.string(), times: z.number().optional() }),
  prompt: 'Echoes.',
  call: async (input) => ({ data: input.text.repeat(input.times ?? 1) }),
});
const resolvePermission = createToolNameResolver({ allow: ['Echo'] });
const base = {
  tools: [tool],
  resolvePermission,
  budget: createResultBudget({ sessionDir: join(dir, 'session') }),
  telemetry: createCapturingTelemetry(),
};

async function perCall(iterations: number, once: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < Math.min(200, iterations); index++) await once(index); // warm up
  const started = performance.now();
  for (let index = 0; index < iterations; index++) await once(index);
  return ((performance.now() - started) * 1000) / iterations;
}

async function drive(run: RunToolUse, index: number): Promise<void> {
  for await (const _event of run(
    { type: 'tool_use', id: `toolu_${index}`, name: 'Echo', input: { text: 'hi', times: 3 } },
    context,
  )) {
    // drain
  }
}

const canUseTool = async () => ({ behavior: 'allow' as const, trace: [] });
const direct = await perCall(20_000, async (index) => {
  const parsed = tool.inputSchema.parse({ text: 'hi', times: 3 });
  const result = await tool.call(parsed, context, canUseTool, () => {}, `toolu_${index}`);
  tool.mapResultToBlock(result.data, `toolu_${index}`);
});
const bare = createToolRunner(base);
const runnerBare = await perCall(20_000, (index) => drive(bare, index));
const inProcess = createToolRunner({
  ...base,
  hooks: createHookRunner({
    callbacks: [
      { event: 'PreToolUse', callback: () => ({ hookSpecificOutput: { permissionDecision: 'allow' } }) },
      { event: 'PostToolUse', callback: () => ({ hookSpecificOutput: { additionalContext: 'ok' } }) },
    ],
  }),
});
const runnerInProcessHooks = await perCall(20_000, (index) => drive(inProcess, index));
const command = createToolRunner({
  ...base,
  hooks: createHookRunner({
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'cat >/dev/null' }] }] },
  }),
});
const runnerCommandHook = await perCall(100, (index) => drive(command, index));
rmSync(dir, { recursive: true, force: true });

const results = {
  directCallMicros: Number(direct.toFixed(2)),
  runnerMicros: Number(runnerBare.toFixed(2)),
  runnerWithInProcessHooksMicros: Number(runnerInProcessHooks.toFixed(2)),
  runnerWithCommandHookMicros: Number(runnerCommandHook.toFixed(2)),
  runnerOverDirect: Number((runnerBare / direct).toFixed(2)),
  inProcessHooksOverRunner: Number((runnerInProcessHooks / runnerBare).toFixed(2)),
  commandHookOverRunner: Number((runnerCommandHook / runnerBare).toFixed(2)),
};
if (json) process.stdout.write(`${JSON.stringify({ name: 'pipeline-overhead', results })}\n`);
else {
  process.stdout.write(
    [
      `direct tool.call():            ${results.directCallMicros} µs/call`,
      `createToolRunner:              ${results.runnerMicros} µs/call (${results.runnerOverDirect}× direct)`,
      `  + in-process Pre/Post hooks: ${results.runnerWithInProcessHooksMicros} µs/call (${results.inProcessHooksOverRunner}× runner)`,
      `  + one command hook (sh -c):  ${results.runnerWithCommandHookMicros} µs/call (${results.commandHookOverRunner}× runner)`,
      '',
    ].join('\n'),
  );
}
