import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateRipgrep, runRipgrep, runRipgrepLines } from './ripgrep.ts';

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'efferent-rg-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A directory holding an `rg` that reports `version` (a real executable, as on a user's PATH). */
async function fakeSystemRipgrep(version: string): Promise<string> {
  const bin = join(scratch, version);
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'rg'), `#!/bin/sh\necho "ripgrep ${version}"\n`);
  await chmod(join(bin, 'rg'), 0o755);
  return bin;
}

describe('locateRipgrep picks the fastest correct source', () => {
  it('prefers the bundled ripgrep over an older system one, and a newer system one over the bundled', async () => {
    const old = await fakeSystemRipgrep('13.0.0');
    expect(await locateRipgrep({ PATH: old })).toMatchObject({ source: 'bundled' });
    const newer = await fakeSystemRipgrep('99.0.0');
    expect(await locateRipgrep({ PATH: newer })).toMatchObject({ source: 'system', version: '99.0.0' });
  });

  it('honours an explicit EFFERENT_RG choice, and skips a system ripgrep that is too old', async () => {
    const old = await fakeSystemRipgrep('13.0.0');
    expect(await locateRipgrep({ PATH: old, EFFERENT_RG: 'system' })).toMatchObject({
      source: 'system',
      version: '13.0.0',
    });
    const ancient = await fakeSystemRipgrep('12.1.1');
    expect(await locateRipgrep({ PATH: ancient, EFFERENT_RG: 'system' })).toEqual({ source: 'js' });
    expect(await locateRipgrep({ PATH: ancient })).toMatchObject({ source: 'bundled' });
  });
});

describe('runRipgrepLines', () => {
  it('hands over whole lines in pieces, the same lines runRipgrep gives, a last unended line included', async () => {
    // A program that prints 200,000 numbered lines (several pipe reads) and a last line without a newline.
    const script = 'seq 1 200000; printf "last"';
    const lines: string[] = [];
    await runRipgrep('sh', ['-c', script], { cwd: scratch }, (line) => void lines.push(line));
    const pieces: Buffer[] = [];
    const exit = await runRipgrepLines('sh', ['-c', script], { cwd: scratch }, (piece) =>
      pieces.push(Buffer.from(piece)),
    );
    expect(exit.exitCode).toBe(0);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.at(-1)).toBe(0x0a);
    const text = Buffer.concat(pieces).toString('utf8');
    expect(text.split('\n').slice(0, -1)).toEqual(lines);
    expect(lines.at(-1)).toBe('last');
    expect(lines).toHaveLength(200_001);
  });
});
