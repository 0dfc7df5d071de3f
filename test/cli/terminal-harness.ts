import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '../../bin/efferent.js');
const driver = resolve(import.meta.dirname, 'pty-driver.py');

/** A running CLI and what it printed so far, with a way to wait for text. */
export interface Screen {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Resolves when `text` has appeared `count` times; fails after 20 s with the screen so far. */
  until(text: string, count?: number): Promise<void>;
  /** Sends keystrokes (PTY) or bytes (pipe). */
  type(text: string): void;
  exit: Promise<number | null>;
}

function watch(child: ChildProcessWithoutNullStreams): Screen {
  let output = '';
  const waiters: Array<{ text: string; count: number; done: () => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (output.split(waiter.text).length - 1 >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  };
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    check();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exit = new Promise<number | null>((done) => child.on('close', done));
  return {
    child,
    output: () => output,
    type: (text) => child.stdin.write(text),
    exit,
    until: (text, count = 1) =>
      new Promise<void>((done, fail) => {
        if (output.split(text).length - 1 >= count) return done();
        const timer = setTimeout(
          () => fail(new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${output}`)),
          20_000,
        );
        waiters.push({
          text,
          count,
          done: () => {
            clearTimeout(timer);
            done();
          },
        });
      }),
  };
}

/** `efferent ARGS` on a real pseudo-terminal (a python3 `pty` driver), with only `env` and PATH. */
export function startOnTerminal(args: string[], cwd: string, env: Record<string, string>): Screen {
  const child = spawn('python3', [driver, process.execPath, bin, ...args], {
    cwd,
    env: { PATH: process.env['PATH'], NO_COLOR: '1', TERM: 'xterm', ...env },
  });
  return watch(child);
}

/** `efferent ARGS` with pipes for stdin and stdout (headless use). */
export function startWithPipes(args: string[], cwd: string, env: Record<string, string>): Screen {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { PATH: process.env['PATH'], NO_COLOR: '1', ...env },
  });
  return watch(child);
}

/** Writes a replay session (one scripted model turn per line). */
export function sessionText(turns: unknown[]): string {
  return turns.map((turn) => JSON.stringify(turn)).join('\n');
}
