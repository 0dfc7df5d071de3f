import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('efferent demo', () => {
  it('fixes the sample project in a temporary copy, narrating parallel reads, permissions, an edit and the tests', async () => {
    const shipped = await readFile(resolve(root, 'examples/demo/project/stats.js'), 'utf8');
    const child = spawn(process.execPath, [resolve(root, 'bin/efferent.js'), 'demo', '--speed', '4'], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NO_COLOR: '1' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code).toBe(0);
    expect(stdout.match(/▶ Read\(/g)).toHaveLength(3);
    expect(stdout).toContain('Permission needed: Bash');
    expect(stdout).toContain('answering "1) Allow once" automatically');
    expect(stdout).toContain('✗ Bash result: tests: 1 passed, 2 failed');
    expect(stdout).toContain('✓ Edit result');
    expect(stdout).toContain('✓ Bash result: tests: 3 passed, 0 failed');
    // The reads started while the first message was still streaming.
    const firstMessageEnd = stdout.indexOf('model: message ended');
    expect(stdout.lastIndexOf('▶ Read(')).toBeLessThan(firstMessageEnd);
    expect(stdout).toMatch(/Summary: end_turn, 4 turns/);
    // The shipped sample is never touched.
    expect(await readFile(resolve(root, 'examples/demo/project/stats.js'), 'utf8')).toBe(shipped);
    expect(shipped).toContain('let index = 1;');
  });
});
