import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** The settings `statusLine` in an interactive `efferent run`: its command's first line above each prompt. */

const bin = resolve(import.meta.dirname, '../../bin/efferent.js');
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-status-line-')));
  await mkdir(join(root, 'home', '.efferent'), { recursive: true });
  await mkdir(join(root, 'project'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('statusLine', () => {
  it('runs the command with the status JSON on stdin and shows its first line, padded', {
    timeout: 60_000,
  }, async () => {
    const project = join(root, 'project');
    await writeFile(
      join(root, 'home', '.efferent', 'settings.json'),
      JSON.stringify({
        statusLine: {
          type: 'command',
          padding: 2,
          command: `python3 -c 'import json,sys; d=json.load(sys.stdin); print("[" + d["model"]["id"] + "] " + d["workspace"]["current_dir"] + " " + d["hook_event_name"]); print("second line")'`,
        },
      }),
    );
    await writeFile(
      join(project, 'session.jsonl'),
      JSON.stringify({ events: [{ type: 'text_delta', text: 'Hello there.' }] }),
    );
    const child = spawn(process.execPath, [bin, 'run', '--cwd', project, '--model', 'replay:session.jsonl'], {
      cwd: project,
      env: {
        PATH: process.env['PATH'],
        HOME: join(root, 'home'),
        NO_COLOR: '1',
        EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json'),
      },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin.write('hello\n');
    child.stdin.end();
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code).toBe(0);
    expect(stdout).toContain('Hello there.');
    const lines = stdout.split('\n').filter((line) => line.includes('[session.jsonl]'));
    // Shown before the first prompt and again after the turn.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toBe(`  [session.jsonl] ${project} Status`);
    expect(stdout).not.toContain('second line');
  });
});
