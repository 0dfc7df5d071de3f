/**
 * MCP costs, measured side by side in one run:
 * - per-call overhead: the official SDK client calling server-memory's `read_graph` over stdio directly,
 *   against the same call made through an efferent session (pipeline, permission engine, budget,
 *   result mapping); the ratio target is ≤ 1.10. Two intermediate paths split the difference:
 *   `McpConnection.callTool` (efferent's transport, signal and progress plumbing) and the MCP tool
 *   itself (input validation, `call`, result mapping) without the pipeline;
 * - start-up: 5 servers started in parallel by efferent, against the slowest of them started alone.
 * Load on a shared machine comes in bursts, so besides the means over all rounds the report gives the
 * median of the per-round ratios (each round runs every path back to back).
 * `[BENCH_MCP_CALLS=N] [BENCH_MCP_WARMUP=N] npx tsx bench/mcp.ts [--json] [--calls-only]`
 * (`--calls-only` skips the start-up part).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createSession } from '../src/agent/index.ts';
import type { CanUseTool } from '../src/core/index.ts';
import { attachMcpToSession, type ConfiguredMcpServer, McpManager } from '../src/mcp/index.ts';

const json = process.argv.includes('--json');
const callsOnly = process.argv.includes('--calls-only');
const dir = mkdtempSync(join(tmpdir(), 'efferent-bench-mcp-'));
const repo = resolve(import.meta.dirname, '..');
const script = (name: string) =>
  join(repo, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
const memoryEnv = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
const iterations = Number(process.env['BENCH_MCP_CALLS'] ?? 100);

/** Client-process CPU per call (µs): what each path costs this process, whatever the machine's load. */
type CallPath = 'direct' | 'connection' | 'tool' | 'through';
const cpuUs: Record<CallPath, number> = { direct: 0, connection: 0, tool: 0, through: 0 };

/** Each round's wall and CPU per call, by path. */
const perRound: Array<Record<CallPath, { wall: number; cpu: number }>> = [];

async function timePerCall(once: () => Promise<void>, path: CallPath, round: number): Promise<number> {
  for (let index = 0; index < 30; index++) await once();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < iterations; index++) await once();
  const used = process.cpuUsage(cpu);
  const wall = ((performance.now() - started) * 1000) / iterations;
  cpuUs[path] += (used.user + used.system) / iterations;
  perRound[round] ??= {} as Record<CallPath, { wall: number; cpu: number }>;
  (perRound[round] as Record<CallPath, { wall: number; cpu: number }>)[path] = {
    wall,
    cpu: (used.user + used.system) / iterations,
  };
  return wall;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function server(name: string, args: string[], env: Record<string, string> = {}): ConfiguredMcpServer {
  return {
    name,
    scope: 'cli',
    origin: 'bench',
    status: 'enabled',
    config: { type: 'stdio', command: process.execPath, args, env },
  };
}

// Both paths are open at once and measured in alternating rounds, so machine load hits both alike.
const direct = new Client({ name: 'bench', version: '1' });
await direct.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [script('memory')],
    env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: join(dir, 'direct.jsonl') },
    stderr: 'ignore',
  }),
);
const manager = new McpManager([server('memory', [script('memory')], memoryEnv)]);
await manager.start();
const session = await createSession({
  cwd: dir,
  home: join(dir, 'home'),
  trusted: false,
  extraTools: manager.tools,
  cli: { allowedTools: ['mcp__memory'] },
});
attachMcpToSession(manager, session);
const callDirect = async () => {
  await direct.callTool({ name: 'read_graph', arguments: {} });
};
const callThrough = async () => {
  const result = await session.callTool('mcp__memory__read_graph', {});
  if (result.isError) throw new Error(JSON.stringify(result.content));
};
const connection = manager.connections[0];
const tool = session.tools.find((candidate) => candidate.name === 'mcp__memory__read_graph');
if (!connection || !tool) throw new Error('server-memory did not start');
const callConnection = async () => {
  await connection.callTool(
    'read_graph',
    {},
    { signal: session.context.run.abortController.signal, onProgress: () => {} },
  );
};
// An MCP tool never asks nested permission questions.
const neverAsked: CanUseTool = () => Promise.reject(new Error('not asked'));
const callToolAlone = async () => {
  const input = tool.inputSchema.parse({});
  const output = await tool.call(input, session.context, neverAsked, () => {}, 'toolu_bench');
  tool.mapResultToBlock(output.data, 'toolu_bench');
};
const paths: Array<[CallPath, () => Promise<void>]> = [
  ['direct', callDirect],
  ['connection', callConnection],
  ['tool', callToolAlone],
  ['through', callThrough],
];
const wallTotal: Record<CallPath, number> = { direct: 0, connection: 0, tool: 0, through: 0 };
const rounds = 6;
// The four paths share the SDK's code, which the JIT thus warms four times as fast as the pipeline's,
// which only the through path runs. `BENCH_MCP_WARMUP` calls of each path before the rounds
// (default 0, as the rounds always measured) show the cost once every path is warm.
const warmUpCalls = Number(process.env['BENCH_MCP_WARMUP'] ?? 0);
for (const [, once] of paths) for (let index = 0; index < warmUpCalls; index++) await once();
for (let round = 0; round < rounds; round++) {
  // Rotate which path goes first in each round, so machine load hits all alike.
  for (let index = 0; index < paths.length; index++) {
    const [path, once] = paths[(index + round) % paths.length] as [CallPath, () => Promise<void>];
    wallTotal[path] += await timePerCall(once, path, round);
  }
}
const directUs = wallTotal.direct / rounds;
const throughUs = wallTotal.through / rounds;
const medianRatio = median(perRound.map((round) => round.through.wall / round.direct.wall));
const medianPipelineCpu = median(perRound.map((round) => round.through.cpu - round.tool.cpu));
await direct.close();
await session.dispose();

// Start-up: five servers in parallel, against the slowest alone.
const five = [
  server('memory', [script('memory')], memoryEnv),
  server('everything', [script('everything'), 'stdio']),
  server('filesystem', [script('filesystem'), dir]),
  server('memory2', [script('memory')], { MEMORY_FILE_PATH: join(dir, 'm2.jsonl') }),
  server('everything2', [script('everything'), 'stdio']),
];
const startAll = async (servers: ConfiguredMcpServer[]) => {
  const started = performance.now();
  const group = new McpManager(servers);
  await group.start();
  const ms = performance.now() - started;
  const failed = group.connections
    .filter((c) => c.status !== 'connected')
    .map((c) => `${c.name}: ${c.error}`);
  await group.dispose();
  if (failed.length > 0) throw new Error(failed.join('; '));
  return ms;
};
const alone: Record<string, number> = {};
if (!callsOnly) for (const entry of five.slice(0, 3)) alone[entry.name] = await startAll([entry]);
const slowestAlone = Math.max(...Object.values(alone));
const parallel = callsOnly ? Number.NaN : await startAll(five);
rmSync(dir, { recursive: true, force: true });

const report = {
  callsMeasured: iterations * rounds,
  warmUpCallsPerPath: warmUpCalls,
  directSdkUsPerCall: Math.round(directUs),
  throughEfferentUsPerCall: Math.round(throughUs),
  callRatio: Number((throughUs / directUs).toFixed(3)),
  callRatioRoundMedian: Number(medianRatio.toFixed(3)),
  directSdkCpuUsPerCall: Math.round(cpuUs.direct / rounds),
  throughEfferentCpuUsPerCall: Math.round(cpuUs.through / rounds),
  connectionUsPerCall: Math.round(wallTotal.connection / rounds),
  connectionCpuUsPerCall: Math.round(cpuUs.connection / rounds),
  mcpToolUsPerCall: Math.round(wallTotal.tool / rounds),
  mcpToolCpuUsPerCall: Math.round(cpuUs.tool / rounds),
  pipelineCpuUsRoundMedian: Math.round(medianPipelineCpu),
  startupAloneMs: Object.fromEntries(Object.entries(alone).map(([k, v]) => [k, Math.round(v)])),
  startupFiveParallelMs: Math.round(parallel),
  startupRatio: Number((parallel / slowestAlone).toFixed(2)),
};
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  process.stdout.write(
    `${[
      `MCP call (server-memory read_graph, ${iterations * rounds} calls each, alternating rounds, after ${warmUpCalls} warm-up calls each)`,
      `  SDK client direct:   ${report.directSdkUsPerCall} µs/call`,
      `  through efferent:    ${report.throughEfferentUsPerCall} µs/call  (ratio ${report.callRatio}, target ≤ 1.10; median of the rounds' ratios ${report.callRatioRoundMedian})`,
      `  client CPU per call: SDK ${report.directSdkCpuUsPerCall} µs, efferent ${report.throughEfferentCpuUsPerCall} µs`,
      `  split (wall / client CPU per call): McpConnection.callTool ${report.connectionUsPerCall} / ${report.connectionCpuUsPerCall} µs, the MCP tool without the pipeline ${report.mcpToolUsPerCall} / ${report.mcpToolCpuUsPerCall} µs`,
      `  MCP layer (tool − SDK direct): ${report.mcpToolCpuUsPerCall - report.directSdkCpuUsPerCall} µs CPU; pipeline (through − tool): ${report.throughEfferentCpuUsPerCall - report.mcpToolCpuUsPerCall} µs CPU (round median ${report.pipelineCpuUsRoundMedian})`,
      ...(callsOnly
        ? []
        : [
            'Start-up',
            `  alone: ${Object.entries(report.startupAloneMs)
              .map(([k, v]) => `${k} ${v} ms`)
              .join(', ')}`,
            `  five in parallel: ${report.startupFiveParallelMs} ms (${report.startupRatio}× the slowest alone)`,
          ]),
    ].join('\n')}\n`,
  );
}
