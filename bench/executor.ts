/**
 * Streaming execution versus the alternatives, measured side by side in one process.
 *
 * One scripted model turn: 10 tool calls (8 reads of 50 ms, 2 writes of 20 ms) whose tool_use blocks
 * stream in over 400 ms. Each strategy runs the same turn through the real pipeline; the time is from
 * the first stream event until every result is ready. The physical limit is the earliest finish any
 * correct schedule could reach given when each block arrived: reads may overlap, writes run alone
 * and in order, and nothing finishes before the stream ends.
 *
 * `npx tsx bench/executor.ts [--json] [--rounds N]`
 */
import { z } from 'zod';
import { buildTool, createToolUseContext, type RunToolUse, type ToolUseContext } from '../src/core/index.ts';
import { runStreamingTurn } from '../src/executor/index.ts';
import { createToolNameResolver, createToolRunner } from '../src/pipeline/index.ts';
import { createScriptedProvider, type ScriptedTurn } from '../src/providers/index.ts';

const readMs = 50;
const writeMs = 20;
const streamMs = 400;
/** R = read, W = write, in call order. */
const plan = ['R', 'R', 'R', 'R', 'W', 'R', 'R', 'R', 'W', 'R'] as const;
const blockMs = streamMs / plan.length;

const args = process.argv.slice(2);
const json = args.includes('--json');
const roundsFlag = args.indexOf('--rounds');
const rounds = roundsFlag >= 0 ? Number(args[roundsFlag + 1]) : 7;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

const benchRead = buildTool({
  name: 'BenchRead',
  inputSchema: z.object({ path: z.string() }),
  prompt: 'Reads (50 ms).',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  async call(input, context) {
    await sleep(readMs, context.run.abortController.signal);
    return { data: `contents of ${input.path}` };
  },
});
const benchWrite = buildTool({
  name: 'BenchWrite',
  inputSchema: z.object({ path: z.string() }),
  prompt: 'Writes (20 ms).',
  async call(input, context) {
    await sleep(writeMs, context.run.abortController.signal);
    return { data: `wrote ${input.path}` };
  },
});
const tools = [benchRead, benchWrite];
const runTool: RunToolUse = createToolRunner({
  tools,
  resolvePermission: createToolNameResolver({ allow: ['BenchRead', 'BenchWrite'] }),
});

const turn: ScriptedTurn = {
  events: plan.map((kind, index) => ({
    type: 'tool_use' as const,
    id: `toolu_${index}`,
    name: kind === 'R' ? 'BenchRead' : 'BenchWrite',
    input: { path: `file-${index}.txt` },
    streamMs: blockMs,
  })),
  stopReason: 'tool_use',
};

/**
 * The earliest finish of any correct schedule, from the moments the blocks actually arrived: each call
 * starts as soon as it arrived and the ordering rules allow, and nothing ends before the stream does.
 */
function physicalLimit(arrivals: readonly number[], streamEnd: number): number {
  let finishedSoFar = 0; // when every earlier call has finished
  let lastUnsafeEnd = 0; // safe calls may not start before the last earlier write ended
  plan.forEach((kind, index) => {
    const arrival = arrivals[index] ?? Number.NaN;
    if (kind === 'W') {
      const end = Math.max(arrival, finishedSoFar) + writeMs;
      lastUnsafeEnd = end;
      finishedSoFar = end;
    } else finishedSoFar = Math.max(finishedSoFar, Math.max(arrival, lastUnsafeEnd) + readMs);
  });
  return Math.max(streamEnd, finishedSoFar);
}

type Strategy = 'efferent' | 'afterStream' | 'sequential';

interface Sample {
  elapsed: number;
  limit: number;
}

async function measure(strategy: Strategy): Promise<Sample> {
  const context: ToolUseContext = createToolUseContext({
    cwd: process.cwd(),
    tools,
    maxConcurrency: strategy === 'sequential' ? 1 : 10,
  });
  const provider = createScriptedProvider([turn]);
  const stream = provider.stream({
    systemPrompt: '',
    messages: [],
    tools,
    signal: context.run.abortController.signal,
  });
  const started = performance.now();
  let results = 0;
  const arrivals: number[] = [];
  let streamEnd = Number.NaN;
  for await (const event of runStreamingTurn(stream, {
    runTool,
    context,
    ...(strategy === 'efferent' ? {} : { executeAfterStreamEnd: true }),
  })) {
    if (event.type === 'tool_result' && !event.result.isError) results += 1;
    if (event.type !== 'stream') continue;
    if (event.event.type === 'tool_use_end') arrivals.push(performance.now() - started);
    if (event.event.type === 'message_end') streamEnd = performance.now() - started;
  }
  const elapsed = performance.now() - started;
  if (results !== plan.length) throw new Error(`${strategy}: ${results} of ${plan.length} calls succeeded`);
  return { elapsed, limit: physicalLimit(arrivals, streamEnd) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

await measure('efferent'); // warm up the pipeline and the JIT
const samples: Record<Strategy, Sample[]> = { efferent: [], afterStream: [], sequential: [] };
for (let round = 0; round < rounds; round += 1) {
  for (const strategy of ['efferent', 'afterStream', 'sequential'] as const)
    samples[strategy].push(await measure(strategy));
}
const round1 = (value: number) => Math.round(value * 10) / 10;
const result = {
  efferentMs: round1(median(samples.efferent.map((sample) => sample.elapsed))),
  // The limit of the very runs efferent made, so stream timing jitter cancels out.
  limitMs: round1(median(samples.efferent.map((sample) => sample.limit))),
  afterStreamMs: round1(median(samples.afterStream.map((sample) => sample.elapsed))),
  sequentialMs: round1(median(samples.sequential.map((sample) => sample.elapsed))),
};
if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  const ratio = (value: number) => (value / result.limitMs).toFixed(3);
  process.stdout.write(
    [
      `10 calls (8 reads × ${readMs} ms, 2 writes × ${writeMs} ms), blocks streamed over ${streamMs} ms; median of ${rounds} rounds`,
      `physical limit          ${result.limitMs.toFixed(1)} ms`,
      `efferent (streaming)    ${result.efferentMs.toFixed(1)} ms  ×${ratio(result.efferentMs)} of the limit`,
      `after the stream ends   ${result.afterStreamMs.toFixed(1)} ms  ×${ratio(result.afterStreamMs)}`,
      `one at a time           ${result.sequentialMs.toFixed(1)} ms  ×${ratio(result.sequentialMs)}`,
      '',
    ].join('\n'),
  );
}
