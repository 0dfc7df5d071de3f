import { spawn } from 'node:child_process';
import { terminalText } from './terminal-text.ts';

/** Claude Code's `statusLine` setting: a command whose first line of output is shown in the terminal. */
export interface StatusLineSetting {
  type: 'command';
  command: string;
  /** Spaces before the line. */
  padding?: number;
}

/** How long the command may take before the line is left out this time. */
const statusLineTimeoutMs = 5_000;

/**
 * Runs the status line command under bash with Claude Code's status JSON on stdin and resolves with
 * the first line it printed (padded), or undefined when it printed nothing, failed or took too long.
 */
export function runStatusLine(
  setting: StatusLineSetting,
  input: Record<string, unknown>,
  options: { cwd: string; env: Readonly<Record<string, string | undefined>> },
): Promise<string | undefined> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', setting.command], {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: statusLineTimeoutMs,
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < 4096) stdout += chunk.toString();
    });
    child.on('error', () => done(undefined));
    child.on('close', (code) => {
      const first = terminalText(stdout.split('\n')[0]?.trimEnd() ?? '', { colours: true });
      done(code === 0 && first !== '' ? `${' '.repeat(setting.padding ?? 0)}${first}` : undefined);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
  });
}

/** A `statusLine` value as settings files hold it, or undefined when it is not a command status line. */
export function statusLineSetting(value: unknown): StatusLineSetting | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (record['type'] !== 'command' || typeof record['command'] !== 'string') return undefined;
  const padding = record['padding'];
  return {
    type: 'command',
    command: record['command'],
    ...(typeof padding === 'number' && Number.isInteger(padding) && padding >= 0 ? { padding } : {}),
  };
}
