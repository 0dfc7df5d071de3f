/**
 * CLI start-up against a bare `node -e 0`, side by side in one run, interleaved: `efferent call Think`,
 * `efferent check Bash` and `efferent check Read` on a simple case, through `bin/efferent.js` as a user runs it (the built
 * bundle when `npm run build` is current; the TypeScript sources through tsx otherwise, which the
 * output says). Target: each at most 4x `node -e 0`.
 * `npx tsx bench/startup.ts [--json] [--runs N]`
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from '../bin/build-state.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsIndex = args.indexOf('--runs');
const runs = runsIndex === -1 ? 15 : Number(args[runsIndex + 1]);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'efferent.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-startup-')));
const env = { ...process.env, HOME: work, EFFERENT_HOME: join(work, '.efferent') };

const cases: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  'efferent call Think': [bin, 'call', 'Think', '{"thought":"x"}', '--cwd', work],
  'efferent check Bash': [bin, 'check', 'Bash', '{"command":"git status"}', '--cwd', work],
  'efferent check Read': [bin, 'check', 'Read', '{"file_path":"notes.txt"}', '--cwd', work],
};

function once(argv: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { cwd: work, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr}`);
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

try {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (const argv of Object.values(cases)) once(argv); // warm the page cache
  for (let run = 0; run < runs; run++)
    for (const [name, argv] of Object.entries(cases)) times[name]?.push(once(argv));
  const base = median(times['node -e 0'] ?? []);
  const built = buildState(root).current;
  const rows = Object.entries(times).map(([name, values]) => ({
    name,
    medianMs: Math.round(median(values)),
    ratio: Number((median(values) / base).toFixed(2)),
  }));
  if (json) process.stdout.write(`${JSON.stringify({ built, rows })}\n`);
  else {
    process.stdout.write(
      `CLI start-up, median of ${runs} interleaved runs (${built ? 'built bundle' : 'no build: sources through tsx'}):\n`,
    );
    for (const row of rows)
      process.stdout.write(
        `  ${row.name.padEnd(22)} ${String(row.medianMs).padStart(6)} ms  ${row.ratio}x\n`,
      );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
