import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionText, startOnTerminal, startWithPipes } from './terminal-harness.ts';

let workspace: string;
/** The user's home: a folder of its own, since a home inside the project is refused as one it chose. */
let home: string;
let outside: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'efferent-tty-'));
  home = await mkdtemp(join(tmpdir(), 'efferent-home-'));
  outside = await mkdtemp(join(tmpdir(), 'efferent-outside-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function replay(turns: unknown[]): Promise<string[]> {
  await writeFile(join(workspace, 'session.jsonl'), sessionText(turns));
  return ['run', '--cwd', workspace, '--model', 'replay:session.jsonl'];
}

/** Whether a process whose command line contains `text` is running (PIDs differ inside bubblewrap). */
function isRunning(text: string): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text)) return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}

const env = () => ({ HOME: home, EFFERENT_HOME: home });

describe('interactive permission prompts on a real terminal', { timeout: 90_000 }, () => {
  it('input typed before a prompt was shown never answers it', async () => {
    const target = join(workspace, 'out.txt');
    const args = await replay([
      {
        events: [
          { type: 'text_delta', text: 'Let me think. ' },
          { type: 'text_delta', text: 'Writing now.', wait: 1500 },
          { type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: target, content: 'x\n' } },
        ],
      },
      { events: [{ type: 'text_delta', text: 'Turn over.' }] },
    ]);
    const screen = startOnTerminal(args, workspace, env());
    await screen.until('> ');
    screen.type('write it\r');
    await screen.until('Let me think.');
    // Typed while the model streams: a queued "1" must not approve the Write shown later.
    screen.type('1\r');
    await screen.until('Choose 1-4:');
    await screen.until('typed before this question was shown');
    await delay(300);
    expect(existsSync(target)).toBe(false);
    screen.type('4\r');
    await screen.until('Turn over.');
    expect(existsSync(target)).toBe(false);
    screen.type('/exit\r');
    expect(await screen.exit).toBe(0);
  });

  it('two calls that need approval are asked one at a time, each naming its call', async () => {
    const first = join(outside, 'first.txt');
    const second = join(outside, 'second.txt');
    await writeFile(first, 'first secret\n');
    await writeFile(second, 'second secret\n');
    const args = await replay([
      {
        events: [
          { type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: first } },
          { type: 'tool_use', id: 'r2', name: 'Read', input: { file_path: second } },
        ],
      },
      { events: [{ type: 'text_delta', text: 'Turn over.' }] },
    ]);
    const screen = startOnTerminal(args, workspace, env());
    await screen.until('> ');
    screen.type('read both\r');
    await screen.until(`Allow Read(${first})? Choose 1-4:`);
    await delay(300);
    // The second question waits until the first is answered.
    expect(screen.output()).not.toContain(`Permission needed: Read(${second})`);
    screen.type('1\r');
    await screen.until(`Allow Read(${second})? Choose 1-4:`);
    screen.type('4\r');
    await screen.until('Turn over.');
    const out = screen.output();
    expect(out).toContain('first secret');
    expect(out).not.toContain('second secret');
    screen.type('/exit\r');
    expect(await screen.exit).toBe(0);
  });

  it('Ctrl+C denies the pending prompt: a later "1" approves nothing', async () => {
    const target = join(workspace, 'out.txt');
    const args = await replay([
      {
        events: [{ type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: target, content: 'x\n' } }],
      },
      { events: [{ type: 'text_delta', text: 'Should not be reached.' }] },
    ]);
    const screen = startOnTerminal(args, workspace, env());
    await screen.until('> ');
    screen.type('write it\r');
    await screen.until('Choose 1-4:');
    screen.type('\x03');
    await screen.until('Interrupted (Ctrl+C)');
    await screen.until('(aborted');
    screen.type('1\r');
    await delay(500);
    expect(existsSync(target)).toBe(false);
    expect(screen.output()).toContain('Denied 1 pending permission question');
    screen.type('/exit\r');
    expect(await screen.exit).toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  it('Esc interrupts the running turn; Ctrl+C at an idle prompt asks for a second one before exiting', async () => {
    const args = await replay([
      {
        events: [
          { type: 'text_delta', text: 'Thinking for a long time' },
          { type: 'text_delta', text: ' and more', wait: 20_000 },
        ],
      },
    ]);
    const screen = startOnTerminal(args, workspace, env());
    await screen.until('> ');
    screen.type('go\r');
    await screen.until('Thinking for a long time');
    screen.type('\x1b');
    await screen.until('Interrupted (Esc)');
    await screen.until('(aborted');
    screen.type('\x03');
    await screen.until('Press Ctrl+C again to exit.');
    await delay(300);
    expect(screen.child.exitCode).toBeNull();
    screen.type('\x03');
    expect(await screen.exit).toBe(0);
  });
});

describe('headless interrupts', { timeout: 90_000 }, () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} stops a running Bash command (its whole process group), writes the result and exits 130`, async () => {
      const marker = join(workspace, 'started');
      const duration = `30.${process.pid}${signal.length}`;
      const command = `sleep ${duration} & touch ${marker}; wait`;
      const args = await replay([
        { events: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command } }] },
        { events: [{ type: 'text_delta', text: 'Should not be reached.' }] },
      ]);
      const screen = startWithPipes(
        [...args, '-p', 'sleep', '--output-format', 'json', '--allowedTools', 'Bash'],
        workspace,
        env(),
      );
      for (let tries = 0; tries < 600 && !existsSync(marker); tries += 1) await delay(50);
      expect(isRunning(`sleep ${duration}`)).toBe(true);
      screen.child.kill(signal);
      expect(await screen.exit).toBe(130);
      const record = JSON.parse(screen.output().trim().split('\n').at(-1) ?? '{}');
      expect(record).toMatchObject({ type: 'result', is_error: true, subtype: 'error_during_execution' });
      for (let tries = 0; tries < 100 && isRunning(`sleep ${duration}`); tries += 1) await delay(50);
      expect(isRunning(`sleep ${duration}`)).toBe(false);
      expect(screen.output()).not.toContain('Should not be reached.');
    });
  }
});
