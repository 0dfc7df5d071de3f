import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newShellId, sessionTaskManager } from './background-tasks.ts';
import { ShellRun } from './shell-run.ts';
import {
  type AnyTool,
  createToolUseContext,
  type CreateContextInit,
  type ToolResult,
  type ToolUseContext,
} from '../../../core/index.ts';

/** A temp project for shell tests: its own root, home and session directory. */
export interface ShellProject {
  root: string;
  home: string;
  context: ToolUseContext;
  /** Disposes the session (stopping background tasks) and removes the directories. */
  cleanup(): Promise<void>;
}

/** Makes a temp project whose context is ready for shell tools. */
export function makeShellProject(init: Partial<CreateContextInit> = {}): ShellProject {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-shell-')));
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(root);
  mkdirSync(home);
  const context = createToolUseContext({
    cwd: root,
    sessionDir: join(base, 'session'),
    env: { PATH: process.env['PATH'], HOME: home, LC_ALL: 'C.UTF-8' },
    ...init,
  });
  return {
    root,
    home,
    context,
    async cleanup() {
      await context.run.resources?.dispose();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Calls a tool directly (no pipeline), collecting its progress events. */
export async function callTool<Output>(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Promise<{ result: ToolResult<Output>; progress: unknown[] }> {
  const parsed = tool.inputSchema.parse(input) as Record<string, unknown>;
  const progress: unknown[] = [];
  const result = (await tool.call(
    parsed,
    context,
    async () => ({ behavior: 'allow', trace: [] }),
    (event) => progress.push(event.data),
    'toolu_test',
  )) as ToolResult<Output>;
  return { result, progress };
}

/** Pids of processes whose whole command line is `commandLine` (read from /proc, so it sees every namespace). */
export function processesMatching(commandLine: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const status = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Zombies are already dead; they only wait to be reaped.
      if (cmdline === commandLine && !/\) Z /.test(status)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits up to `ms` for every process running `commandLine` to be gone; returns those still alive. */
export async function waitUntilGone(commandLine: string, ms = 2_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = processesMatching(commandLine);
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(20);
    alive = processesMatching(commandLine);
  }
  return alive;
}

/** Starts `command` with bash as a background task of the project's session; returns its id. */
export function startBackgroundTask(
  project: ShellProject,
  command: string,
  options: { killGraceMs?: number } = {},
): string {
  const tasks = sessionTaskManager(project.context);
  const id = newShellId();
  const directory = join(project.context.run.sessionDir, 'shell');
  mkdirSync(directory, { recursive: true });
  const run = new ShellRun({
    file: 'bash',
    args: ['-c', command],
    cwd: project.root,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    stdoutPath: join(directory, `${id}.stdout`),
    stderrPath: join(directory, `${id}.stderr`),
    ...options,
  });
  tasks.adopt(id, run, { command });
  return id;
}
