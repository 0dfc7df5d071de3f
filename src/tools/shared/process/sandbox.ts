import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import {
  sandboxReadOnlyHomeEntries,
  sandboxReadOnlyWorkspaceEntries,
} from '../../../core/protected-paths.ts';
import { closeDescriptor, openFilterDescriptor, unixSocketFilter } from './seccomp.ts';

/**
 * The OS sandbox for shell commands, on bubblewrap (`bwrap`): the whole file system read-only, the
 * working directories and the session directory writable, protected paths read-only even inside
 * them, a private /tmp, no network unless allowed, and a private PID namespace so every process the
 * command starts dies with it.
 */

/** Whether bwrap can be used here, and why not. */
export type SandboxAvailability = { available: true } | { available: false; reason: string };

/** What a sandboxed command may touch. */
export interface SandboxPolicy {
  /** Directories the command may write (canonical paths): the project root and added directories. */
  writableDirectories: readonly string[];
  /** Where efferent keeps the command's output and cwd file; always writable. */
  sessionDirectory: string;
  /** The user's home: its shell start-up files stay read-only if home is writable. */
  homeDirectory: string;
  /** Keep the host network (default: none, not even the host's loopback). */
  allowNetwork: boolean;
  /**
   * Let commands open Unix sockets when the network is off (default false: `socket(AF_UNIX)` fails,
   * so host daemons listening on socket files stay out of reach). Ignored when the network is allowed.
   */
  allowUnixSockets?: boolean;
}

/** The arguments for bwrap plus the placeholders to remove when the command is done. */
export interface SandboxInvocation {
  file: string;
  args: string[];
  /** Descriptors the process must inherit as fd 3, 4, … (the seccomp program). */
  inheritedFds: number[];
  /** Removes placeholder files created to protect paths that did not exist; closes the descriptors. */
  cleanup(): void;
}

/**
 * Paths inside each writable directory that stay read-only: git hooks and config run code on the
 * host later, and efferent/Claude settings can define hooks. Missing ones get an empty read-only
 * placeholder so the command cannot create them either.
 */
export const protectedWorkspaceEntries = ['.git/hooks', '.git/config', '.efferent', '.claude'] as const;

/**
 * Files and directories in a workspace whose content other tools run on the host later: hook
 * managers (husky, pre-commit, lefthook) that the repository's hooks hand control to, editor task
 * and MCP configuration, git attributes and submodules. Kept read-only when they exist; missing
 * ones are not created (the tools that read them need other setup, which stays protected).
 */
export const protectedIfPresentEntries: readonly string[] = sandboxReadOnlyWorkspaceEntries;

/** Start-up files in home that run code in every later shell (protected when home is writable). */
export const protectedHomeEntries: readonly string[] = sandboxReadOnlyHomeEntries;

let cachedAvailability: SandboxAvailability | undefined;

/**
 * Probes bwrap once per process with the namespaces efferent uses; the answer is a fact about the
 * machine, so it is cached. `refresh` probes again.
 */
export function probeSandbox(refresh = false): SandboxAvailability {
  if (cachedAvailability && !refresh) return cachedAvailability;
  const probe = spawnSync(
    'bwrap',
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', 'true'],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' },
  );
  if (probe.error) {
    const missing = (probe.error as NodeJS.ErrnoException).code === 'ENOENT';
    cachedAvailability = {
      available: false,
      reason: missing
        ? 'bubblewrap (bwrap) is not installed'
        : `bwrap could not start: ${probe.error.message}`,
    };
  } else if (probe.status !== 0) {
    const detail = probe.stderr.trim().split('\n')[0] ?? '';
    cachedAvailability = {
      available: false,
      reason: `bwrap does not work here (${detail || `exit ${probe.status}`})`,
    };
  } else {
    cachedAvailability = { available: true };
  }
  return cachedAvailability;
}

/** True when `child` is `parent` or below it (both canonical, absolute). */
function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** The bwrap command line that runs `command` (argv) under `policy` with `cwd` as working directory. */
export function buildSandboxInvocation(
  policy: SandboxPolicy,
  cwd: string,
  command: readonly string[],
): SandboxInvocation {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc'];
  // --new-session: the command cannot reach a controlling terminal (TIOCSTI input injection). We
  // already spawn it detached, so job control inside `bash -c` is unaffected either way.
  args.push('--new-session');
  if (!policy.allowNetwork) args.push('--unshare-net');
  const inheritedFds: number[] = [];
  const filter = policy.allowNetwork || policy.allowUnixSockets ? undefined : unixSocketFilter();
  if (filter) {
    inheritedFds.push(openFilterDescriptor(filter));
    // The child sees inherited descriptors from fd 3 on, in order.
    args.push('--seccomp', '3');
  }
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');

  const writable = policy.writableDirectories.filter((directory) => existsSync(directory));
  for (const directory of writable) args.push('--bind', directory, directory);

  const placeholders: string[] = [];
  const protect = (path: string) => {
    if (!existsSync(path)) {
      // A dangling link cannot be bound; the command cannot write through it into a read-only tree.
      if (isSymlink(path)) return;
      const placeholder = createPlaceholder(path);
      if (placeholder === 'failed') return;
      if (placeholder === 'created') placeholders.push(path);
    }
    args.push('--ro-bind', path, path);
  };
  const mustNotAppear: string[] = [];
  for (const directory of writable) {
    const gitEntry = join(directory, '.git');
    const gitKind = entryKind(gitEntry);
    // A worktree's or submodule's `.git` file names the repository git trusts: keep it as it is.
    if (gitKind === 'file') args.push('--ro-bind', gitEntry, gitEntry);
    // Binding .git onto itself makes it a mount point, which cannot be renamed or removed, so the
    // command cannot set a fresh repository (with its own config) in its place.
    if (gitKind === 'directory') args.push('--bind', gitEntry, gitEntry);
    for (const entry of protectedWorkspaceEntries) {
      // .git/hooks and .git/config only matter in a real repository.
      if (entry.startsWith('.git/') && gitKind !== 'directory') continue;
      protect(join(directory, entry));
    }
    for (const entry of protectedIfPresentEntries) {
      const path = join(directory, entry);
      if (entryKind(path) !== 'missing' && !isSymlink(path)) args.push('--ro-bind', path, path);
    }
    const hooksPath = gitKind === 'directory' ? configuredHooksDirectory(directory, gitEntry) : undefined;
    if (hooksPath && entryKind(hooksPath) === 'directory') args.push('--ro-bind', hooksPath, hooksPath);
    if (gitKind === 'directory') {
      // These redirect where git reads its config from; an empty placeholder would break git, so an
      // existing one is kept read-only and a new one is removed when the command ends.
      for (const name of gitConfigRedirects) {
        const path = join(gitEntry, name);
        if (entryKind(path) === 'missing') mustNotAppear.push(path);
        else args.push('--ro-bind', path, path);
      }
      for (const module of submoduleGitDirectories(gitEntry)) {
        for (const name of ['hooks', 'config']) protect(join(module, name));
      }
    }
  }
  if (writable.some((directory) => isInside(policy.homeDirectory, directory))) {
    for (const entry of protectedHomeEntries) protect(join(policy.homeDirectory, entry));
  }
  // Last, so it stays writable even when it lives under a protected directory such as .efferent.
  args.push('--bind', policy.sessionDirectory, policy.sessionDirectory);
  args.push('--chdir', cwd, '--', ...command);

  return {
    file: 'bwrap',
    args,
    inheritedFds,
    cleanup() {
      for (const fd of inheritedFds.splice(0)) closeDescriptor(fd);
      for (const path of placeholders) removePlaceholder(path);
      for (const path of mustNotAppear) rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * The directory `core.hooksPath` in the repository's config names, when it lies inside the
 * workspace (husky and similar point it at a tracked folder): git runs whatever is there.
 */
function configuredHooksDirectory(workspace: string, gitDirectory: string): string | undefined {
  let config: string;
  try {
    config = readFileSync(join(gitDirectory, 'config'), 'utf8');
  } catch {
    return undefined;
  }
  const match = /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(config);
  const value = match?.[1]?.replace(/^"(.*)"$/, '$1');
  if (!value) return undefined;
  const path = resolve(workspace, value);
  return isInside(path, workspace) ? path : undefined;
}

/** Files in a git directory that make git read its config from somewhere else. */
const gitConfigRedirects = ['commondir', 'config.worktree'] as const;

function entryKind(path: string): 'missing' | 'file' | 'directory' | 'other' {
  try {
    const info = lstatSync(path);
    return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** The git directories of submodules (`.git/modules/<name>`), whose hooks and config run code too. */
function submoduleGitDirectories(gitDirectory: string): string[] {
  const modules = join(gitDirectory, 'modules');
  try {
    return readdirSync(modules, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(modules, entry.name));
  } catch {
    return [];
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Creates an empty file to bind read-only over a missing protected path. */
function createPlaceholder(path: string): 'created' | 'exists' | 'failed' {
  try {
    closeSync(openSync(path, 'wx', 0o444));
    return 'created';
  } catch (error) {
    // A concurrent sandboxed command created it first: protect it, but leave removal to that one.
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'exists' : 'failed';
  }
}

function removePlaceholder(path: string): void {
  try {
    const info = lstatSync(path);
    if (info.isFile() && info.size === 0) unlinkSync(path);
  } catch {
    // Already gone.
  }
}
