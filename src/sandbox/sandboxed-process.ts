import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NetworkPolicy } from './network/network-policy.ts';
import type { HostResolver, SandboxProxy } from './network/proxy.ts';
import { tmpFootprint } from './program-footprint.ts';
import { buildSandboxInvocation, probeSandbox } from './sandbox.ts';

/**
 * A long-lived or one-off process other than a Bash command (an MCP stdio server, a command hook)
 * in the same sandbox: the same layout, protections, seccomp filter and proxies, with its own
 * writable folders and its own network allowlist.
 */
export interface SandboxedProcessSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Folders the process may write (its own folder); everything else is read-only. */
  writableDirectories: readonly string[];
  /** Reach only these domains through the proxies; no network at all when absent. */
  network?: NetworkPolicy;
  resolve?: HostResolver;
  /** Real paths the process must not read. */
  hiddenPaths?: readonly string[];
  homeDirectory?: string;
  /** The PATH the command is looked up on when it is a bare name; default this process's. */
  path?: string;
}

/** What to spawn, and what to do around the spawn. */
export interface SandboxedProcess {
  file: string;
  args: string[];
  /** Stdio entries after 0, 1 and 2 (the seccomp program's descriptor, the relay's IPC channel). */
  extraStdio: Array<number | 'ipc'>;
  /** The network proxy serving the process, when it has an allowlist. */
  proxy?: SandboxProxy;
  /** Call with the spawned child: closes the descriptors it inherited, serves its relay. */
  attach(child: ChildProcess): void;
  /** Call when the process has ended (or was never started): removes everything made for it. */
  release(): Promise<void>;
}

/** Why a process that must be sandboxed cannot be, as a sentence ending with a period. */
export class SandboxUnavailableError extends Error {}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Prepares `spec` to run in the sandbox: the process's own private /tmp and a read-only scratch
 * folder stand in for a session's. Throws {@link SandboxUnavailableError} when bwrap does not work
 * here: a process configured to be sandboxed never runs without it.
 */
export async function prepareSandboxedProcess(spec: SandboxedProcessSpec): Promise<SandboxedProcess> {
  const availability = probeSandbox();
  if (!availability.available)
    throw new SandboxUnavailableError(
      `it must run in the OS sandbox, but ${availability.reason}; install bubblewrap (Linux) or turn its sandbox setting off.`,
    );
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-sandboxed-')));
  const privateTmp = join(scratch, 'tmp');
  mkdirSync(privateTmp, { mode: 0o700 });
  let proxy: SandboxProxy | undefined;
  try {
    if (spec.network) {
      const { SandboxProxy } = await import('./network/proxy.ts');
      proxy = await SandboxProxy.start(spec.network, spec.resolve ? { resolve: spec.resolve } : {});
    }
    // Seatbelt has no network namespace to put a relay in: the process reaches a loopback port.
    const proxyPort = proxy && process.platform === 'darwin' ? await proxy.listenLoopback() : undefined;
    const invocation = buildSandboxInvocation(
      {
        writableDirectories: spec.writableDirectories.map(canonical),
        sessionDirectory: scratch,
        homeDirectory: canonical(spec.homeDirectory ?? homedir()),
        allowNetwork: false,
        privateTmpDirectory: privateTmp,
        ...(spec.hiddenPaths ? { hiddenPaths: spec.hiddenPaths } : {}),
        ...(proxy ? { networkProxy: true } : {}),
        // The program, its package and its working directory stay readable even when they live
        // under the host's /tmp, which the private /tmp hides.
        readOnlyTmpPaths: tmpFootprint(spec.command, spec.args, spec.cwd, spec.path),
      },
      canonical(spec.cwd),
      [spec.command, ...spec.args],
      proxyPort === undefined ? {} : { proxyPort },
    );
    let released = false;
    const prepared: SandboxedProcess = {
      file: invocation.file,
      args: invocation.args,
      extraStdio: [...invocation.inheritedFds, ...(invocation.needsIpc ? (['ipc'] as const) : [])],
      attach(child) {
        if (proxy && invocation.needsIpc) proxy.attach(child);
      },
      async release() {
        if (released) return;
        released = true;
        invocation.cleanup();
        await proxy?.close();
        rmSync(scratch, { recursive: true, force: true });
      },
    };
    if (proxy) prepared.proxy = proxy;
    return prepared;
  } catch (error) {
    await proxy?.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}
