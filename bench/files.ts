/**
 * File tools against the tools they wrap, measured side by side in one run:
 * - Grep vs raw ripgrep with the same flags, over the installed node_modules (all files);
 * - Glob vs `rg --files` (plain, and with the same flags Glob passes);
 * - Read of a 2,000-line window at the end of a generated 1 GB file: time (first read, and again once
 *   the line index is warm) and peak RSS added, measured in a separate process.
 * `npx tsx bench/files.ts [--json] [--size-mb N] [--runs N]`
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AnyTool, createToolUseContext, type ToolUseContext } from '../src/core/index.ts';
import { GlobTool } from '../src/tools/glob/glob.ts';
import { GrepTool } from '../src/tools/grep/grep.ts';
import { ripgrepArgs, splitGlobs } from '../src/tools/grep/grep-spec.ts';
import { ReadTool } from '../src/tools/read/read.ts';
import { locateRipgrep } from '../src/tools/shared/ripgrep.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const option = (name: string, fallback: number) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const allow = async () => ({ behavior: 'allow' as const, trace: [] });

async function callTool(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Promise<unknown> {
  const result = await tool.call(input, context, allow, () => {}, 'bench');
  return result.data;
}

/** Runs a process to completion, draining stdout, and returns the bytes it printed. */
function drain(file: string, argv: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Alternates the two sides `runs` times after a warm-up, so cache and CPU state favour neither. */
async function sideBySide(runs: number, ours: () => Promise<unknown>, theirs: () => Promise<unknown>) {
  await ours();
  await theirs();
  const oursMs: number[] = [];
  const theirsMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    let started = performance.now();
    await ours();
    oursMs.push(performance.now() - started);
    started = performance.now();
    await theirs();
    theirsMs.push(performance.now() - started);
  }
  const toolMs = median(oursMs);
  const baselineMs = median(theirsMs);
  return { toolMs: round(toolMs), baselineMs: round(baselineMs), ratio: round(toolMs / baselineMs, 3) };
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

async function benchSearch(runs: number) {
  const root = join(repo, 'node_modules');
  const context = createToolUseContext({ cwd: root });
  const rg = await locateRipgrep(context.run.env);
  if (rg.source === 'js') throw new Error('No ripgrep binary available to compare against.');
  const spec = (pattern: string, mode: 'content' | 'files_with_matches') => ({
    pattern,
    searchArg: undefined,
    absoluteTarget: root,
    targetIsFile: false,
    mode,
    caseInsensitive: false,
    onlyMatching: false,
    lineNumbers: mode === 'content',
    before: 0,
    after: 0,
    multiline: false,
    globs: splitGlobs(undefined),
    type: undefined,
  });
  const grepFiles = await sideBySide(
    runs,
    () => callTool(GrepTool, { pattern: 'function', head_limit: 0 }, context),
    () => drain(rg.path, ripgrepArgs(spec('function', 'files_with_matches')), root),
  );
  const grepContent = await sideBySide(
    runs,
    () => callTool(GrepTool, { pattern: 'TODO', output_mode: 'content', head_limit: 0 }, context),
    () => drain(rg.path, ripgrepArgs(spec('TODO', 'content')), root),
  );
  const globPlain = await sideBySide(
    runs,
    () => callTool(GlobTool, { pattern: '**/*.js' }, context),
    () => drain(rg.path, ['--files', '--hidden', '--glob', '**/*.js'], root),
  );
  const globSameFlags = await sideBySide(
    runs,
    () => callTool(GlobTool, { pattern: '**/*.js' }, context),
    () =>
      drain(
        rg.path,
        [
          '--files',
          '--hidden',
          '--no-require-git',
          '--sortr',
          'modified',
          '--glob',
          '**/*.js',
          '--glob',
          '!.git',
        ],
        root,
      ),
  );
  const files = Number(
    spawnSync(rg.path, ['--files', '--hidden'], { cwd: root, encoding: 'utf8' }).stdout.split('\n').length -
      1,
  );
  return {
    ripgrep: `${rg.source} ${rg.version}`,
    treeFiles: files,
    grepFiles,
    grepContent,
    globPlain,
    globSameFlags,
  };
}

/**
 * Writes a file of about `sizeMb` MB of short numbered log lines (about 40 characters, so a 2,000-line
 * window fits Read's 25,000-token cap); returns its line count.
 */
function generateLog(path: string, sizeMb: number): number {
  const fd = openSync(path, 'w');
  const target = sizeMb * 1024 * 1024;
  let written = 0;
  let line = 0;
  try {
    while (written < target) {
      let chunk = '';
      while (chunk.length < 1 << 20) {
        chunk += `${line} INFO GET /items/${line % 977} 200 ${(line * 37) % 9000}\n`;
        line++;
      }
      writeSync(fd, chunk);
      written += chunk.length;
    }
  } finally {
    closeSync(fd);
  }
  return line;
}

/** Child side of the Read benchmark: reads the last 2,000 lines twice and reports time and memory. */
async function readChild(path: string, totalLines: number): Promise<void> {
  const context = createToolUseContext({ cwd: dirname(path) });
  const offset = totalLines - 2000 + 1;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let started = performance.now();
  const first = (await callTool(ReadTool, { file_path: path, offset, limit: 2000 }, context)) as {
    file: { numLines: number };
  };
  const coldMs = performance.now() - started;
  const warm: number[] = [];
  for (let run = 0; run < 5; run++) {
    started = performance.now();
    await callTool(ReadTool, { file_path: path, offset, limit: 2000 }, context);
    warm.push(performance.now() - started);
  }
  const warmMs = median(warm);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const copyMs = rawCopyMs(path);
  process.stdout.write(
    JSON.stringify({
      lines: first.file.numLines,
      coldMs,
      warmMs,
      warm,
      addedPeakRssMb: (peakRss - rssBefore) / 2 ** 20,
      copyMs,
    }),
  );
}

/**
 * The floor for a cold window deep in the file: copying every byte from the page cache once, with
 * nothing else done (no newline counting). No line-numbered read can start later than this.
 */
function rawCopyMs(path: string): number {
  const buffer = Buffer.allocUnsafe(8 << 20);
  const fd = openSync(path, 'r');
  try {
    const started = performance.now();
    while (readSync(fd, buffer, 0, buffer.length, null) > 0) {}
    return performance.now() - started;
  } finally {
    closeSync(fd);
  }
}

async function benchRead(sizeMb: number) {
  const dir = mkdtempSync(join(tmpdir(), 'efferent-bench-read-'));
  try {
    const path = join(dir, 'big.log');
    const totalLines = generateLog(path, sizeMb);
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--read-child',
        path,
        String(totalLines),
      ],
      { cwd: repo, encoding: 'utf8' },
    );
    if (child.status !== 0) throw new Error(`read child failed: ${child.stderr}`);
    const measured = JSON.parse(child.stdout) as {
      lines: number;
      coldMs: number;
      warmMs: number;
      addedPeakRssMb: number;
      copyMs: number;
    };
    return {
      fileMb: sizeMb,
      totalLines,
      windowLines: measured.lines,
      firstReadMs: round(measured.coldMs),
      rawCopyMs: round(measured.copyMs),
      firstReadOverCopy: round(measured.coldMs / measured.copyMs, 3),
      warmReadMs: round(measured.warmMs),
      addedPeakRssMb: round(measured.addedPeakRssMb),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (args[0] === '--read-child') {
    await readChild(args[1] as string, Number(args[2]));
    return;
  }
  const runs = option('--runs', 7);
  const search = await benchSearch(runs);
  const read = await benchRead(option('--size-mb', 1024));
  const result = { ...search, read, targets: { grep: 1.15, glob: 1.2, readMs: 100, readAddedMb: 64 } };
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const line = (name: string, value: { toolMs: number; baselineMs: number; ratio: number }, target: number) =>
    `${name.padEnd(34)} tool ${String(value.toolMs).padStart(7)} ms   baseline ${String(value.baselineMs).padStart(7)} ms   ratio ${value.ratio} (target <= ${target})`;
  process.stdout.write(
    [
      `ripgrep ${search.ripgrep}; tree: node_modules, ${search.treeFiles} files; median of ${runs} alternating runs`,
      line('Grep files_with_matches vs rg', search.grepFiles, 1.15),
      line('Grep content vs rg', search.grepContent, 1.15),
      line('Glob vs rg --files', search.globPlain, 1.2),
      line('Glob vs rg --files (same flags)', search.globSameFlags, 1.2),
      `Read last 2,000 lines of ${read.fileMb} MB (${read.totalLines} lines): first read ${read.firstReadMs} ms (copying the file alone: ${read.rawCopyMs} ms), again (median of 5) ${read.warmReadMs} ms, peak RSS +${read.addedPeakRssMb} MB (targets < 100 ms, < 64 MB)`,
      '',
    ].join('\n'),
  );
}

await main();
