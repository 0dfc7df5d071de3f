import { spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildState } from '../../bin/build-state.js';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin', 'efferent.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-code-cache-')));
const cacheDirectory = join(work, 'cache');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function callThink(): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, 'call', 'Think', '{"thought":"x"}', '--cwd', work], {
    cwd: work,
    env: {
      ...process.env,
      HOME: work,
      EFFERENT_HOME: join(work, '.efferent'),
      EFFERENT_CACHE_DIR: cacheDirectory,
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

function cacheFiles(): string[] {
  try {
    return readdirSync(cacheDirectory);
  } catch {
    return [];
  }
}

// The code cache belongs to the built bundle; a clone whose sources changed since the build runs the
// sources through tsx instead, with no cache.
describe.skipIf(!buildState(root).current)('the CLI bundle’s V8 code cache', { timeout: 180_000 }, () => {
  it('is saved by the first run, used as is by the next, and replaced when it is not valid', () => {
    const first = callThink();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('Thought recorded');
    const files = cacheFiles();
    expect(files).toHaveLength(1);
    const name = files[0] as string;
    expect(name).toMatch(
      new RegExp(
        `^bundle\\.cjs\\.[0-9a-f]+\\.${process.version.replaceAll('.', '\\.')}\\.${process.arch}\\.v8cache$`,
      ),
    );
    const path = join(cacheDirectory, name);
    const saved = readFileSync(path);
    const savedAt = statSync(path).mtimeMs;

    // Accepted: the next run prints the same and leaves the cache alone.
    const second = callThink();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(statSync(path).mtimeMs).toBe(savedAt);
    expect(readFileSync(path).equals(saved)).toBe(true);

    // Damaged (V8 rejects it): the run is unaffected and a good cache replaces it.
    writeFileSync(path, Buffer.alloc(saved.length, 7));
    const third = callThink();
    expect(third.status, third.stderr).toBe(0);
    expect(third.stdout).toBe(first.stdout);
    expect(readFileSync(path).equals(Buffer.alloc(saved.length, 7))).toBe(false);
    expect(cacheFiles()).toEqual([name]);
  });
});
