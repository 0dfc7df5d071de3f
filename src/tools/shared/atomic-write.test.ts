import {
  chmod,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAtomicTempFile, removeStaleTempFiles, writeFileAtomic } from './atomic-write.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efferent-atomic-'));
});
afterEach(async () => {
  await chmod(dir, 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates a file and leaves no temp file behind', async () => {
    const file = join(dir, 'new.txt');
    await writeFileAtomic(file, 'hello');
    expect(await readFile(file, 'utf8')).toBe('hello');
    expect(await readdir(dir)).toEqual(['new.txt']);
  });

  it('keeps the mode of an existing file', async () => {
    const file = join(dir, 'script.sh');
    await writeFile(file, '#!/bin/sh\n');
    await chmod(file, 0o751);
    await writeFileAtomic(file, '#!/bin/sh\necho hi\n');
    expect((await stat(file)).mode & 0o777).toBe(0o751);
    expect(await readFile(file, 'utf8')).toBe('#!/bin/sh\necho hi\n');
  });

  it('writes through a symlink to its target and keeps the link', async () => {
    const target = join(dir, 'real.txt');
    const link = join(dir, 'link.txt');
    await writeFile(target, 'old');
    await symlink(target, link);
    await writeFileAtomic(link, 'new');
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await readlink(link)).toBe(target);
  });

  it('leaves the original untouched and removes its temp file when aborted', async () => {
    const file = join(dir, 'keep.txt');
    await writeFile(file, 'original');
    const controller = new AbortController();
    controller.abort();
    await expect(writeFileAtomic(file, 'replacement', { signal: controller.signal })).rejects.toThrow();
    expect(await readFile(file, 'utf8')).toBe('original');
    expect(await readdir(dir)).toEqual(['keep.txt']);
  });

  it('fails cleanly in a directory it cannot write to', async () => {
    if (process.getuid?.() === 0) return; // root ignores directory permissions
    const file = join(dir, 'locked.txt');
    await writeFile(file, 'original');
    await chmod(dir, 0o555);
    await expect(writeFileAtomic(file, 'x')).rejects.toMatchObject({ code: 'EACCES' });
    await chmod(dir, 0o755);
    expect(await readFile(file, 'utf8')).toBe('original');
  });

  it('recognises and removes stale temp files, never fresh ones or links', async () => {
    const old = new Date(Date.now() - 5 * 60_000);
    await writeFile(join(dir, '.big.txt.efferent-tmp-123-abc'), 'partial');
    await utimes(join(dir, '.big.txt.efferent-tmp-123-abc'), old, old);
    await writeFile(join(dir, '.fresh.txt.efferent-tmp-456-def'), 'a write in progress');
    await symlink('/etc/passwd', join(dir, '.link.efferent-tmp-1-a'));
    await writeFile(join(dir, 'big.txt'), 'content');
    expect(isAtomicTempFile('.big.txt.efferent-tmp-123-abc')).toBe(true);
    expect(isAtomicTempFile('big.txt')).toBe(false);
    expect(await removeStaleTempFiles(dir)).toEqual(['.big.txt.efferent-tmp-123-abc']);
    expect((await readdir(dir)).sort()).toEqual([
      '.fresh.txt.efferent-tmp-456-def',
      '.link.efferent-tmp-1-a',
      'big.txt',
    ]);
  });

  it('cleans what a killed writer left on the next write to the directory', async () => {
    // A real writer process killed between creating its temp file and renaming it.
    const script = `const fs=require('node:fs');fs.writeFileSync(${JSON.stringify(join(dir, '.data.bin.efferent-tmp-99-dead'))}, Buffer.alloc(1<<20));process.kill(process.pid,'SIGKILL');`;
    spawnSync(process.execPath, ['-e', script]);
    const leftover = join(dir, '.data.bin.efferent-tmp-99-dead');
    const old = new Date(Date.now() - 2 * 60_000);
    await utimes(leftover, old, old);
    await writeFileAtomic(join(dir, 'data.bin'), 'new content');
    expect(await readdir(dir)).toEqual(['data.bin']);
  });
});
