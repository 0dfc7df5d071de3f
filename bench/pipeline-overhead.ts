/**
 * What the 14-step pipeline costs per call, measured side by side in one run: a direct `tool.call()`
 * against `createToolRunner` bare, with in-process hooks, and with a real command hook (`sh -c`).
 * Then the overhead with the real permission engine: 1,000 rules (mostly `Bash(prefix *)`, Read and
 * Edit path rules, some deny and ask rules) and two in-process hooks that do not decide, for a
 * read-path call (Read) and a Bash call. Both tools are the real ones (schema, preparation, shell
 * analysis, objections, decision) with the final file read / process spawn replaced by a constant
 * result, so what is measured is everything efferent does around the tool. The engine rows are the
 * steady cost (warmed up until a round of 1,000 calls costs within 5% of the one before) and, apart,
 * the first 1,000 calls of the process, which run before the JIT has optimised the engine.
 *
 * The steady cost is then timed in rounds, Read and Bash calls interleaved with a reference loop of
 * plain JavaScript that does not touch efferent (JSON, a Map, a regex, a split). On the small VMs
 * this runs on, the machine itself changes speed for minutes at a time: in a slow stretch the
 * reference loop slows by the same factor as the calls. Each row gives the round the machine ran
 * fastest (the cost of the work itself), the median round, and the reference loop in both, so a
 * slow run shows as the machine's and not as efferent's.
 * `npx tsx bench/pipeline-overhead.ts [--json]`
 */
import { lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createResultBudget } from '../src/budget/index.ts';
import { buildTool, createToolUseContext, type RunToolUse } from '../src/core/index.ts';
import { createHookRunner } from '../src/hooks/index.ts';
import { buildRules, createPermissionResolver, loadDefaultShellAnalyzer } from '../src/permissions/index.ts';
import { shellParseCount } from '../src/shell/index.ts';
import { BashTool } from '../src/tools/bash/bash.ts';
import { ReadTool } from '../src/tools/read/read.ts';
import { createToolNameResolver, createToolRunner } from '../src/pipeline/index.ts';
import { createOtelTelemetry } from '../src/telemetry/index.ts';

const json = process.argv.includes('--json');
const dir = mkdtempSync(join(tmpdir(), 'efferent-bench-pipeline-'));
const context = createToolUseContext({ cwd: dir, sessionDir: join(dir, 'session') });
const tool = buildTool({
  name: 'Echo',
  inputSchema: z.object({ text: z.string(), times: z.number().optional() }),
  prompt: 'Echoes.',
  call: async (input) => ({ data: input.text.repeat(input.times ?? 1) }),
});
const resolvePermission = createToolNameResolver({ allow: ['Echo', 'Read', 'Bash'] });
const base = {
  tools: [tool],
  resolvePermission,
  budget: createResultBudget({ sessionDir: join(dir, 'session') }),
  // The default sink (OpenTelemetry; a no-op until the embedder registers a provider): a sink that
  // kept every event would grow by a few hundred thousand records over the run and time its GC.
  telemetry: createOtelTelemetry(),
};

async function perCall(iterations: number, once: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < Math.min(200, iterations); index++) await once(index); // warm up
  const started = performance.now();
  for (let index = 0; index < iterations; index++) await once(index);
  return ((performance.now() - started) * 1000) / iterations;
}

/** Wall-clock and CPU time per call (µs) of `count` calls from `first` on. */
interface PerCall {
  wall: number;
  cpu: number;
}
async function timeCalls(count: number, once: (index: number) => Promise<void>, first = 0): Promise<PerCall> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let index = first; index < first + count; index++) await once(index);
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: ((performance.now() - started) * 1000) / count, cpu: (cpu.user + cpu.system) / count };
}

/**
 * The steady cost per call: rounds of 1,000 calls until a round's CPU per call is within 5% of the
 * round before (the JIT has optimised the hot functions; at least 5 and at most 40 rounds), then
 * 3,000 measured calls. Returns the measured cost and how many calls the warm-up took.
 */
async function steadyPerCall(
  once: (index: number) => Promise<void>,
): Promise<PerCall & { warmUpCalls: number }> {
  let previous = Number.POSITIVE_INFINITY;
  let calls = 0;
  for (let round = 0; round < 40; round++) {
    const { cpu } = await timeCalls(1_000, once, calls);
    calls += 1_000;
    if (round >= 4 && Math.abs(cpu - previous) <= previous * 0.05) break;
    previous = cpu;
  }
  return { ...(await timeCalls(3_000, once, calls)), warmUpCalls: calls };
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

/** 1,000 rules shaped like a real settings file: mostly command prefixes, then paths, then denials. */
function thousandRules() {
  const words = ['git', 'npm', 'make', 'cargo', 'docker', 'kubectl', 'python', 'node', 'yarn', 'pnpm'];
  const allow: string[] = ['Bash(npm run *)'];
  const deny: string[] = ['Bash(rm -rf *)', 'Read(./secrets/**)'];
  const ask: string[] = ['Bash(git push *)'];
  for (let index = 0; allow.length + deny.length + ask.length < 1000; index++) {
    const word = words[index % words.length];
    const slot = index % 10;
    if (slot < 6) allow.push(`Bash(${word} task${index} *)`);
    else if (slot === 6) deny.push(`Bash(${word} forbidden${index} *)`);
    else if (slot === 7) allow.push(`Read(./docs/set${index}/**)`);
    else if (slot === 8) allow.push(`Edit(/src/module${index}/**)`);
    else deny.push(`Read(./private/part${index}/**)`);
  }
  const origin = { source: 'projectSettings' as const, origin: 'bench', root: dir };
  return {
    allow: buildRules(allow, 'allow', origin).rules,
    deny: buildRules(deny, 'deny', origin).rules,
    ask: buildRules(ask, 'ask', origin).rules,
  };
}
mkdirSync(join(dir, 'src'), { recursive: true });
for (let index = 0; index < 50; index++) writeFileSync(join(dir, `src/file${index}.ts`), 'export {};\n');
const shell = await loadDefaultShellAnalyzer();
const engine = createPermissionResolver({ rules: thousandRules(), home: dir, shell });
const quietHooks = createHookRunner({
  callbacks: [
    { event: 'PreToolUse', callback: () => ({ hookSpecificOutput: { additionalContext: 'seen' } }) },
    { event: 'PostToolUse', callback: () => ({ hookSpecificOutput: { additionalContext: 'ok' } }) },
  ],
});
const readResult = {
  type: 'text',
  file: {
    filePath: join(dir, 'notes.txt'),
    content: 'x',
    numLines: 1,
    startLine: 1,
    totalLines: 1,
    notes: [],
  },
};
const dryRead = { ...ReadTool, call: async () => ({ data: readResult }) };
const bashResult = { stdout: 'ok', stderr: '', exitCode: 0, interrupted: false, isImage: false };
const dryBash = {
  ...BashTool,
  prepare: (
    input: Parameters<NonNullable<typeof BashTool.prepare>>[0],
    callContext: Parameters<NonNullable<typeof BashTool.prepare>>[1],
    reuse: Parameters<NonNullable<typeof BashTool.prepare>>[2],
  ) => ({
    ...BashTool.prepare?.(input, callContext, reuse),
    call: async () => ({ data: bashResult }),
  }),
};
// The stand-in results must be ones the real tools map (a result that throws in mapResultToBlock
// falls back to the default block, and the exception alone would be measured as pipeline cost).
ReadTool.mapResultToBlock(readResult as Parameters<typeof ReadTool.mapResultToBlock>[0], 'check');
BashTool.mapResultToBlock(bashResult, 'check');
const engineContext = createToolUseContext({
  cwd: dir,
  sessionDir: join(dir, 'session'),
  env: { HOME: dir, PATH: process.env.PATH ?? '' },
});
const engineRunner = (resolver: typeof engine) =>
  createToolRunner({
    tools: [dryRead, dryBash],
    resolvePermission: resolver,
    hooks: quietHooks,
    budget: createResultBudget({ sessionDir: join(dir, 'session') }),
    telemetry: createOtelTelemetry(),
  });
const withEngine = engineRunner(engine);
// The same pipeline with a resolver that allows everything: what the pipeline side costs alone.
const withoutEngine = engineRunner(resolvePermission);
async function driveWith(
  runner: RunToolUse,
  name: string,
  input: Record<string, unknown>,
  index: number,
): Promise<void> {
  for await (const event of runner({ type: 'tool_use', id: `toolu_e${index}`, name, input }, engineContext)) {
    if (event.type === 'result' && event.result.isError) throw new Error(String(event.result.content));
  }
}
// The 50 inputs are spelled once: the rounds time the calls, not the building of their strings.
const readPaths = Array.from({ length: 50 }, (_, index) => join(dir, `src/file${index}.ts`));
const bashCommands = Array.from({ length: 50 }, (_, index) => `npm run build --workspace pkg${index}`);
const readInput = (index: number) => ({ file_path: readPaths[index % 50] ?? dir });
const bashInput = (index: number) => ({ command: bashCommands[index % 50] ?? 'true' });
const engineRead = (index: number) => driveWith(withEngine, 'Read', readInput(index), index);
const engineBash = (index: number) => driveWith(withEngine, 'Bash', bashInput(index), index);
// The first 1,000 calls of each kind in this process, before the JIT has optimised the engine: what
// a short session pays per call.
const readCold = await timeCalls(1_000, engineRead);
const parsesBefore = shellParseCount();
const bashCold = await timeCalls(1_000, engineBash);
const parsesPerBashCall = (shellParseCount() - parsesBefore) / 1_000;
const readWarm = await steadyPerCall(engineRead);
const bashWarm = await steadyPerCall(engineBash);

/** Plain JavaScript, fixed work, nothing of efferent's: the machine's speed at the moment (µs). */
const referenceText = JSON.stringify({
  a: [1, 2, 3, 'x'.repeat(40)],
  b: { c: 'hello world', d: [true, null] },
});
let referenceSink = 0;
function referenceLoop(iterations: number): number {
  const started = performance.now();
  for (let index = 0; index < iterations; index++) {
    const parsed = JSON.parse(referenceText) as { b: { c: string } };
    const map = new Map<string, number>();
    for (let key = 0; key < 8; key++) map.set(`k${key}${index & 7}`, key);
    referenceSink += parsed.b.c.split(' ').length + (map.get(`k3${index & 7}`) ?? 0);
    if (/wor(l)d$/.test(parsed.b.c)) referenceSink++;
  }
  return ((performance.now() - started) * 1000) / iterations;
}
interface Round {
  read: PerCall;
  bash: PerCall;
  reference: number;
}
/**
 * One round: 10 slices of 50 Read calls, 50 Bash calls and a stretch of the reference loop about as
 * long, so the three meet the same machine.
 */
let roundCalls = Math.max(readWarm.warmUpCalls, bashWarm.warmUpCalls) + 3_000;
async function round(): Promise<Round> {
  const sum = { read: { wall: 0, cpu: 0 }, bash: { wall: 0, cpu: 0 }, reference: 0 };
  for (let slice = 0; slice < 10; slice++) {
    const read = await timeCalls(50, engineRead, roundCalls);
    const bash = await timeCalls(50, engineBash, roundCalls);
    roundCalls += 50;
    sum.read.wall += read.wall / 10;
    sum.read.cpu += read.cpu / 10;
    sum.bash.wall += bash.wall / 10;
    sum.bash.cpu += bash.cpu / 10;
    sum.reference += referenceLoop(2_000) / 10;
  }
  return sum;
}
const rounds: Round[] = [];
for (let index = 0; index < 12; index++) rounds.push(await round());
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
/** The round the machine ran fastest: the lowest reference loop (its calls, not the lowest calls). */
const fastest = rounds.reduce((best, round) => (round.reference < best.reference ? round : best));
const readCall = { ...fastest.read, warmUpCalls: readWarm.warmUpCalls };
const bashCall = { ...fastest.bash, warmUpCalls: bashWarm.warmUpCalls };
const readMedian = median(rounds.map((round) => round.read.wall));
const bashMedian = median(rounds.map((round) => round.bash.wall));
const referenceMedian = median(rounds.map((round) => round.reference));
const readNoEngine = await perCall(3_000, (index) =>
  driveWith(withoutEngine, 'Read', readInput(index), index),
);
const bashNoEngine = await perCall(3_000, (index) =>
  driveWith(withoutEngine, 'Bash', bashInput(index), index),
);
// What the machine charges for the filesystem questions the two decisions must ask (the folder's
// realpath and an lstat of each name a path may be), and for the one parse a Bash call needs: the
// floor under the two rows above on this machine, timed alone.
const readFloor = await perCall(3_000, async (index) => {
  realpathSync.native(join(dir, 'src'));
  lstatSync(join(dir, `src/file${index % 50}.ts`), { throwIfNoEntry: false });
});
const bashFloor = await perCall(3_000, async (index) => {
  realpathSync.native(dir);
  for (const word of ['run', 'build', `pkg${index % 50}`])
    lstatSync(join(dir, word), { throwIfNoEntry: false });
});
const parseAlone = await perCall(3_000, async (index) => {
  shell.analyzeCommand(bashInput(index).command, { cwd: dir, home: dir });
});
rmSync(dir, { recursive: true, force: true });

const results = {
  directCallMicros: Number(direct.toFixed(2)),
  runnerMicros: Number(runnerBare.toFixed(2)),
  runnerWithInProcessHooksMicros: Number(runnerInProcessHooks.toFixed(2)),
  runnerWithCommandHookMicros: Number(runnerCommandHook.toFixed(2)),
  runnerOverDirect: Number((runnerBare / direct).toFixed(2)),
  inProcessHooksOverRunner: Number((runnerInProcessHooks / runnerBare).toFixed(2)),
  commandHookOverRunner: Number((runnerCommandHook / runnerBare).toFixed(2)),
  engine1000RulesTwoHooksReadMicros: Number(readCall.wall.toFixed(2)),
  engine1000RulesTwoHooksBashMicros: Number(bashCall.wall.toFixed(2)),
  engine1000RulesTwoHooksReadCpuMicros: Number(readCall.cpu.toFixed(2)),
  engine1000RulesTwoHooksBashCpuMicros: Number(bashCall.cpu.toFixed(2)),
  engine1000RulesTwoHooksReadMedianMicros: Number(readMedian.toFixed(2)),
  engine1000RulesTwoHooksBashMedianMicros: Number(bashMedian.toFixed(2)),
  referenceLoopFastestMicros: Number(fastest.reference.toFixed(3)),
  referenceLoopMedianMicros: Number(referenceMedian.toFixed(3)),
  referenceLoopSink: referenceSink > 0 ? 1 : 0,
  engineWarmUpCalls: { read: readCall.warmUpCalls, bash: bashCall.warmUpCalls },
  engineFirst1000ReadMicros: Number(readCold.wall.toFixed(2)),
  engineFirst1000BashMicros: Number(bashCold.wall.toFixed(2)),
  allowAllTwoHooksReadMicros: Number(readNoEngine.toFixed(2)),
  allowAllTwoHooksBashMicros: Number(bashNoEngine.toFixed(2)),
  parsesPerBashCall,
  readFilesystemFloorMicros: Number(readFloor.toFixed(2)),
  bashFilesystemFloorMicros: Number(bashFloor.toFixed(2)),
  bashAnalysisAloneMicros: Number(parseAlone.toFixed(2)),
};
if (json) process.stdout.write(`${JSON.stringify({ name: 'pipeline-overhead', results })}\n`);
else {
  process.stdout.write(
    [
      `direct tool.call():            ${results.directCallMicros} µs/call`,
      `createToolRunner:              ${results.runnerMicros} µs/call (${results.runnerOverDirect}× direct)`,
      `  + in-process Pre/Post hooks: ${results.runnerWithInProcessHooksMicros} µs/call (${results.inProcessHooksOverRunner}× runner)`,
      `  + one command hook (sh -c):  ${results.runnerWithCommandHookMicros} µs/call (${results.commandHookOverRunner}× runner)`,
      `1,000 rules, 2 in-process hooks, real engine, steady state (after ${results.engineWarmUpCalls.read} and ${results.engineWarmUpCalls.bash} warm-up calls; targets: Read ≤ 50 µs, Bash ≤ 100 µs),`,
      '12 rounds of 500 calls each, interleaved with a plain-JavaScript reference loop; the round the machine ran fastest:',
      `  Read call (path rules):      ${results.engine1000RulesTwoHooksReadMicros} µs/call (CPU ${results.engine1000RulesTwoHooksReadCpuMicros} µs)`,
      `  Bash call (one analysis):    ${results.engine1000RulesTwoHooksBashMicros} µs/call (CPU ${results.engine1000RulesTwoHooksBashCpuMicros} µs; ${results.parsesPerBashCall} parses per call)`,
      `  reference loop:              ${results.referenceLoopFastestMicros} µs`,
      'the median round (a slower median with a slower reference loop is the machine, not the calls):',
      `  Read call:                   ${results.engine1000RulesTwoHooksReadMedianMicros} µs/call`,
      `  Bash call:                   ${results.engine1000RulesTwoHooksBashMedianMicros} µs/call`,
      `  reference loop:              ${results.referenceLoopMedianMicros} µs`,
      'the first 1,000 calls of the process (the JIT not yet warm; what a short session pays):',
      `  Read call:                   ${results.engineFirst1000ReadMicros} µs/call`,
      `  Bash call:                   ${results.engineFirst1000BashMicros} µs/call`,
      'the same two calls with an allow-all resolver (the pipeline side alone; nothing asks for the analysis):',
      `  Read call:                   ${results.allowAllTwoHooksReadMicros} µs/call`,
      `  Bash call:                   ${results.allowAllTwoHooksBashMicros} µs/call`,
      'what this machine charges for the work the two decisions cannot skip, timed alone:',
      `  Read: realpath + lstat:      ${results.readFilesystemFloorMicros} µs/call`,
      `  Bash: realpath + 3 lstats:   ${results.bashFilesystemFloorMicros} µs/call`,
      `  Bash: the one analysis:      ${results.bashAnalysisAloneMicros} µs/call`,
      '',
    ].join('\n'),
  );
}
