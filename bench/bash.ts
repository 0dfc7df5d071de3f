/**
 * Bash tool overhead against spawning the same command directly, side by side in one run:
 * `bash -c true` and a small `echo`, without and with the bubblewrap sandbox (the sandboxed tool is
 * also compared with spawning bwrap directly, to separate the sandbox's own cost from the tool's).
 * `npx tsx bench/bash.ts [--json] [--runs N]`
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyTool, createToolUseContext } from '../src/core/index.ts';
import { createBashTool } from '../src/tools/bash/bash.ts';
import { buildSandboxInvocation, probeSandbox } from '../src/tools/shared/process/sandbox.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsIndex = args.indexOf('--runs');
const runs = runsIndex === -1 ? 30 : Number(args[runsIndex + 1]);

const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-bash-')));
const root = join(base, 'project');
const sessionDir = join(base, 'session');
mkdirSync(root);
mkdirSync(sessionDir);
const context = createToolUseContext({
  cwd: root,
  sessionDir,
  env: { PATH: process.env['PATH'], HOME: base },
});
const allow = async () => ({ behavior: 'allow' as const, trace: [] });

async function callTool(tool: AnyTool, command: string): Promise<void> {
  const result = await tool.call({ command }, context, allow, () => {}, 'bench');
  const data = result.data as { exitCode: number | null; stderr?: string; notes?: string[] };
  if (data.exitCode !== 0)
    throw new Error(
      `${command} failed in the tool (exit ${data.exitCode}): ${[data.stderr ?? '', ...(data.notes ?? [])].join(' ').trim()}`,
    );
}

/** Spawns a process, drains its stdout and waits for it to exit. */
function spawnDirect(
  file: string,
  argv: readonly string[],
  inheritedFds: readonly number[] = [],
): Promise<void> {
  return new Promise((resolve, reject) => {
    // bwrap reads its seccomp program from the descriptors it inherits from fd 3 on.
    const child = spawn(file, [...argv], { cwd: root, stdio: ['ignore', 'pipe', 'pipe', ...inheritedFds] });
    child.stdout?.resume();
    let stderr = '';
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Alternates the sides `runs` times after a warm-up, so neither gets a warmer cache. */
async function sideBySide(sides: Record<string, () => Promise<void>>): Promise<Record<string, number>> {
  for (const side of Object.values(sides)) await side();
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const [name, side] of Object.entries(sides)) {
      const started = performance.now();
      await side();
      times[name]?.push(performance.now() - started);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
}

const sandbox = probeSandbox();
const plainTool = createBashTool({ sandbox: 'off' });
const sandboxedTool = createBashTool({ sandbox: 'required' });
const policy = {
  writableDirectories: [root],
  sessionDirectory: sessionDir,
  homeDirectory: base,
  allowNetwork: false,
};

const results: Array<Record<string, unknown>> = [];
try {
  for (const command of ['true', 'echo hello world']) {
    const sides: Record<string, () => Promise<void>> = {
      direct: () => spawnDirect('bash', ['-c', command]),
      tool: () => callTool(plainTool, command),
    };
    if (sandbox.available) {
      sides['directBwrap'] = () => {
        const invocation = buildSandboxInvocation(policy, root, ['bash', '-c', command]);
        return spawnDirect(invocation.file, invocation.args, invocation.inheritedFds).finally(() =>
          invocation.cleanup(),
        );
      };
      sides['sandboxedTool'] = () => callTool(sandboxedTool, command);
    }
    const medians = await sideBySide(sides);
    const direct = medians['direct'] ?? 1;
    const row: Record<string, unknown> = {
      command,
      runs,
      medianMs: Object.fromEntries(
        Object.entries(medians).map(([name, ms]) => [name, Number(ms.toFixed(2))]),
      ),
      toolVsDirect: Number(((medians['tool'] ?? 0) / direct).toFixed(2)),
    };
    if (sandbox.available) {
      row['sandboxedToolVsDirect'] = Number(((medians['sandboxedTool'] ?? 0) / direct).toFixed(2));
      row['sandboxedToolVsDirectBwrap'] = Number(
        ((medians['sandboxedTool'] ?? 0) / (medians['directBwrap'] ?? 1)).toFixed(2),
      );
    }
    results.push(row);
  }
} finally {
  await context.run.resources?.dispose();
  rmSync(base, { recursive: true, force: true });
}

if (json) {
  process.stdout.write(
    `${JSON.stringify({ benchmark: 'bash', sandbox: sandbox.available ? 'bwrap' : sandbox.reason, results }, null, 2)}\n`,
  );
} else {
  if (!sandbox.available) process.stdout.write(`sandbox columns skipped: ${sandbox.reason}\n`);
  for (const row of results) {
    const medians = row['medianMs'] as Record<string, number>;
    process.stdout.write(
      `${String(row['command']).padEnd(18)} ${Object.entries(medians)
        .map(([name, ms]) => `${name} ${ms.toFixed(2)} ms`)
        .join(', ')}\n  tool/direct ${row['toolVsDirect']}x` +
        (sandbox.available
          ? `, sandboxed tool/direct ${row['sandboxedToolVsDirect']}x, sandboxed tool/direct bwrap ${row['sandboxedToolVsDirectBwrap']}x`
          : '') +
        '\n',
    );
  }
}
