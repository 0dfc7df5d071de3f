import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'efferent.js');

/** What a CLI run printed and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI in a child process with its own HOME (default: the working directory), no
 * colour, a closed stdin and only PATH from the parent's environment, plus `env`.
 */
export function runEfferent(
  args: readonly string[],
  cwd: string,
  home = cwd,
  env: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { PATH: process.env['PATH'], HOME: home, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin.end();
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
