import type { SessionResource, SessionResourceKey } from '../../core/index.ts';
import {
  buildSandboxInvocation,
  probeSandbox,
  type SandboxAvailability,
  type SandboxBackendOptions,
  type SandboxPolicy,
} from '../shared/process/sandbox.ts';

/**
 * The script `bash -c` runs: the command goes in as an argument and is `eval`ed, so its text is never
 * spliced into ours, and an EXIT trap writes the final working directory (`pwd -P`) to a file, even
 * when the command ends with `exit`. Positional parameters are shifted away before the command runs.
 */
export const bashWrapperScript =
  '__efferent_cwd_file=$1; __efferent_command=$2; shift 2; ' +
  `trap 'pwd -P >| "$__efferent_cwd_file" 2>/dev/null' EXIT; ` +
  'eval "$__efferent_command"';

/** When commands run inside the OS sandbox. */
export type SandboxMode = 'auto' | 'off' | 'required';

/** A ready-to-spawn command line. */
export interface BashInvocation {
  file: string;
  args: string[];
  sandboxed: boolean;
  /** Set when the sandbox was wanted but could not be used. */
  sandboxUnavailableReason?: string;
  /** Descriptors the process inherits as fd 3, 4, …; `cleanup` closes them. */
  inheritedFds: number[];
  cleanup(): void;
  /** Spawn with an IPC channel served by the call's network proxy. */
  needsIpc?: boolean;
  /** Git directories the sandbox keeps read-only but for their state. */
  protectedGitDirectories?: readonly string[];
  /** Paths in the writable directories the sandbox kept read-only for the command. */
  readOnlyPaths?: readonly string[];
}

/** Builds the command line for `command`, inside the OS sandbox when the mode and the machine allow it. */
export function buildBashInvocation(options: {
  command: string;
  cwdFile: string;
  cwd: string;
  shell: string;
  mode: SandboxMode;
  disableSandbox: boolean;
  policy: SandboxPolicy;
  probe?: () => SandboxAvailability;
  /** The sandbox backend (platform, the proxy's loopback port for Seatbelt); default this machine's. */
  backend?: SandboxBackendOptions;
}): BashInvocation {
  const inner = [options.shell, '-c', bashWrapperScript, 'bash', options.cwdFile, options.command];
  const plain = (reason?: string): BashInvocation => {
    const invocation: BashInvocation = {
      file: options.shell,
      args: inner.slice(1),
      sandboxed: false,
      inheritedFds: [],
      cleanup: () => {},
    };
    if (reason !== undefined) invocation.sandboxUnavailableReason = reason;
    return invocation;
  };
  if (options.mode === 'off' || options.disableSandbox) return plain();
  const availability = (options.probe ?? probeSandbox)();
  if (!availability.available) return plain(availability.reason);
  const sandbox = buildSandboxInvocation(options.policy, options.cwd, inner, options.backend);
  return {
    file: sandbox.file,
    args: sandbox.args,
    sandboxed: true,
    inheritedFds: sandbox.inheritedFds,
    cleanup: () => sandbox.cleanup(),
    ...(sandbox.needsIpc ? { needsIpc: true } : {}),
    ...(sandbox.protectedGitDirectories ? { protectedGitDirectories: sandbox.protectedGitDirectories } : {}),
    ...(sandbox.readOnlyPaths ? { readOnlyPaths: sandbox.readOnlyPaths } : {}),
  };
}

/** Notes the session has already shown the model, so each appears once. */
export class SessionNotices implements SessionResource {
  readonly #shown = new Set<string>();

  /** True the first time `key` is seen in this session. */
  firstTime(key: string): boolean {
    if (this.#shown.has(key)) return false;
    this.#shown.add(key);
    return true;
  }

  dispose(): void {
    this.#shown.clear();
  }
}

/** The session's shown-notices record. */
export const sessionNoticesKey: SessionResourceKey<SessionNotices> = {
  name: 'bash-notices',
  create: () => new SessionNotices(),
};
