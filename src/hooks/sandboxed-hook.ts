import type { NetworkPolicy } from '../sandbox/network/network-policy.ts';
import { prepareSandboxedProcess } from '../sandbox/sandboxed-process.ts';
import { type CommandRun, type CommandRunOptions, commandLine, runCommandHook } from './command-hook.ts';
import type { CommandHookHandler } from './types.ts';

/**
 * Command hooks in the OS sandbox (settings: `sandbox.hooks`): the same layout as Bash, writable
 * only in the project folder, and with their own network allowlist (none: no network at all).
 */
export interface HookSandbox {
  /** Folders hooks may write; default the folder they run in (the project). */
  writableDirectories?: readonly string[];
  network?: NetworkPolicy;
}

/** Runs a command hook inside the sandbox; a hook that cannot be sandboxed does not run. */
export async function runSandboxedCommandHook(
  handler: CommandHookHandler,
  options: CommandRunOptions,
  sandbox: HookSandbox,
): Promise<CommandRun> {
  const { file, args } = commandLine(handler);
  let prepared: Awaited<ReturnType<typeof prepareSandboxedProcess>>;
  try {
    prepared = await prepareSandboxedProcess({
      command: file,
      args,
      cwd: options.cwd,
      writableDirectories: sandbox.writableDirectories ?? [options.cwd],
      ...(sandbox.network ? { network: sandbox.network } : {}),
      ...(options.env['HOME'] ? { homeDirectory: options.env['HOME'] } : {}),
    });
  } catch (error) {
    return {
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      aborted: false,
      spawnError: error instanceof Error ? error.message : String(error),
    };
  }
  try {
    return await runCommandHook(handler, { ...options, spawnAs: prepared });
  } finally {
    await prepared.release();
  }
}
