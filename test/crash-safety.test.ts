import { type ChildProcess, spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAtomicTempFile, removeStaleTempFiles } from '../src/tools/shared/atomic-write.ts';
import { claimedVersion, expectedContent } from './crash-safety-writer.ts';

// Each run kills a real writer process. 200 runs take about 45 s on 2 cores (all intact when measured), so CI
// runs 100 by default; set EFFERENT_CRASH_RUNS=200 (or more) for the full check.
const runs = Number(process.env['EFFERENT_CRASH_RUNS'] ?? 100);
const parallel = 2;
let workDir: string;
let childCommand: { file: string; args: string[] };

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'efferent-crash-'));
  const fixture = fileURLToPath(new URL('./crash-safety-writer.ts', import.meta.url));
  try {
    // A bundled child starts in tens of milliseconds instead of half a second through tsx.
    const { build } = await import('esbuild');
    const outfile = join(workDir, 'child.mjs');
    await build({
      entryPoints: [fixture],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'silent',
    });
    childCommand = { file: process.execPath, args: [outfile] };
  } catch {
    childCommand = { file: process.execPath, args: ['--import', 'tsx', fixture] };
  }
}, 60_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function startWriter(file: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(childCommand.file, childCommand.args, {
      cwd: join(fileURLToPath(new URL('.', import.meta.url)), '..'),
      env: { ...process.env, EFFERENT_CRASH_CHILD_FILE: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout?.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
}

async function crashOnce(
  lane: number,
  run: number,
  lastVersion: Map<number, number>,
): Promise<{ version: number; strays: number }> {
  const directory = join(workDir, `lane-${lane}`);
  const file = join(directory, 'big.txt');
  const child = await startWriter(file);
  if (run % 2 === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5 + ((run * 7_919) % 150)));
  } else {
    // Aim at the riskiest moment: while a temp file is being written or renamed.
    await new Promise<void>((resolve) => {
      const watcher = watch(directory, (_event, name) => {
        if (name && isAtomicTempFile(name)) {
          watcher.close();
          setTimeout(resolve, (run * 31) % 4);
        }
      });
      setTimeout(() => {
        watcher.close();
        resolve();
      }, 2000);
    });
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const content = await readFile(file, 'utf8');
  const version = claimedVersion(content);
  expect(version, `run ${run}: first line must be a version line`).toBeDefined();
  // Whole old or whole new content: never a mix, never a truncation.
  expect(
    content === expectedContent(version as number),
    `run ${run}: content of version ${version} is intact`,
  ).toBe(true);
  expect(version as number).toBeGreaterThanOrEqual(lastVersion.get(lane) ?? 0);
  lastVersion.set(lane, version as number);
  const others = (await readdir(directory)).filter((name) => name !== 'big.txt');
  expect(
    others.every(isAtomicTempFile),
    `run ${run}: only recognisable temp files: ${others.join(', ')}`,
  ).toBe(true);
  await removeStaleTempFiles(directory, Date.now() + 1); // every leftover, however fresh: the writer is dead
  expect(await readdir(directory)).toEqual(['big.txt']);
  return { version: version as number, strays: others.length };
}

describe('crash safety of Write and Edit', () => {
  it(`keeps a large file whole across ${runs} SIGKILLs of a writing process`, async () => {
    const lastVersion = new Map<number, number>();
    for (let lane = 0; lane < parallel; lane++) {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(workDir, `lane-${lane}`));
      await writeFile(join(workDir, `lane-${lane}`, 'big.txt'), expectedContent(0));
    }
    let strays = 0;
    let progressed = 0;
    const lanes = Array.from({ length: parallel }, async (_, lane) => {
      for (let run = lane; run < runs; run += parallel) {
        const result = await crashOnce(lane, run, lastVersion);
        strays += result.strays;
        if (result.version > 0) progressed++;
      }
    });
    await Promise.all(lanes);
    // The writers must really have been writing when killed, or the test proves nothing.
    expect(Math.max(...lastVersion.values())).toBeGreaterThan(2);
    expect(progressed).toBeGreaterThan(0);
    console.info(
      `crash-safety: ${runs} kills, final versions ${[...lastVersion.values()].join('/')}, ${strays} temp files left by killed writers (recognised and removed)`,
    );
  }, 600_000);
});
