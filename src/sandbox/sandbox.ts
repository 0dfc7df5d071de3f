import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  readOwnFileSync,
  type SessionResource,
  type SessionResourceKey,
  startupFileNames,
} from '../core/index.ts';
import {
  isProtectedFamilyName,
  protectedDirectoryNames,
  protectedFamilyNestedPaths,
  protectedFilePatterns,
  sandboxReadOnlyHomeEntries,
  sandboxReadOnlyWorkspaceEntries,
} from '../core/protected-paths.ts';
import { proxyEnvironment, relayCommand } from './network/relay.ts';
import { seatbeltProfile } from './seatbelt.ts';
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
  /**
   * The host directory that is the command's /tmp for the whole session ({@link sandboxTmpKey}):
   * private to the session, never the host's /tmp. A fresh tmpfs per call when absent.
   */
  privateTmpDirectory?: string;
  /**
   * Files in the session directory the command itself writes (its cwd file), created by efferent
   * beforehand. Each is bound alone; the rest of the session directory is read-only to the command.
   */
  writableSessionFiles?: readonly string[];
  /** Real paths the command must not see (the user's Read deny rules): they become unreadable. */
  hiddenPaths?: readonly string[];
  /**
   * Reach the network only through efferent's proxies (ignored when `allowNetwork`): the command runs
   * behind the relay ({@link relayCommand}), with the proxy variables set. The process must be
   * spawned with an IPC channel that a {@link SandboxProxy} serves.
   */
  networkProxy?: boolean;
  /**
   * Host files and folders under /tmp the command needs to read (a program installed there, its
   * package, its working directory): the private /tmp hides the host's, so these are bound into it
   * read-only, before the writable folders. Paths not strictly below /tmp are ignored.
   */
  readOnlyTmpPaths?: readonly string[];
}

/** The arguments for bwrap plus the placeholders to remove when the command is done. */
export interface SandboxInvocation {
  file: string;
  args: string[];
  /** Descriptors the process must inherit as fd 3, 4, … (the seccomp program). */
  inheritedFds: number[];
  /** Removes placeholder files created to protect paths that did not exist; closes the descriptors. */
  cleanup(): void;
  /** True when the process must be spawned with an IPC channel for the network relay. */
  needsIpc?: boolean;
  /** The git directories kept read-only but for their state (changes there come from the host). */
  protectedGitDirectories?: readonly string[];
  /** Paths inside the writable directories bound read-only for the command (changes there come from the host). */
  readOnlyPaths?: readonly string[];
}

/**
 * Entries at the root of every writable directory that stay read-only: the engine's protected names,
 * nested locations and pattern spellings (one list in core), plus efferent's and Claude's settings
 * folders. Missing single names are covered by an empty read-only directory for the call.
 */
export const protectedWorkspaceEntries: readonly string[] = [
  ...new Set([...sandboxReadOnlyWorkspaceEntries, '.efferent', '.claude']),
];

/**
 * Names from the same list that only matter in a home directory (shell start-up files, credentials):
 * at a project root they are kept read-only when present but not covered when missing, since no
 * program reads them there. Home itself, when writable, covers them ({@link protectedHomeEntries}).
 */
const homeOnlyNames: ReadonlySet<string> = new Set(
  [...startupFileNames, '.ssh', '.gnupg', '.aws', '.netrc', '.curlrc', '.wgetrc', '.pypirc'].filter(
    // Project-level configuration that package managers and direnv read from the project root.
    (name) => name !== '.npmrc' && name !== '.envrc',
  ),
);

/**
 * The names covered at a project root even when missing: every single protected name but the
 * home-only ones. Nested locations (`.config/autostart`) are protected only when present, so no
 * parent directory is created in the project.
 */
export const coveredWorkspaceEntries: readonly string[] = protectedWorkspaceEntries.filter(
  (name) => !homeOnlyNames.has(name) && !name.includes('/'),
);

/** Entries in home that run code in later sessions (protected when home is writable); one list in core. */
export const protectedHomeEntries: readonly string[] = sandboxReadOnlyHomeEntries;

let cachedAvailability: SandboxAvailability | undefined;

/**
 * Probes the sandbox once per process: on macOS `sandbox-exec`, elsewhere bwrap with the namespaces
 * efferent uses; the answer is a fact about the machine, so it is cached. `refresh` probes again.
 */
export function probeSandbox(refresh = false): SandboxAvailability {
  if (cachedAvailability && !refresh) return cachedAvailability;
  cachedAvailability = process.platform === 'darwin' ? probeSeatbelt() : probeBubblewrap();
  return cachedAvailability;
}

/** Whether `sandbox-exec` runs a command under a profile here (macOS). */
export function probeSeatbelt(): SandboxAvailability {
  const probe = spawnSync(sandboxExecPath, ['-p', '(version 1)(allow default)', '/usr/bin/true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
    encoding: 'utf8',
  });
  if (probe.error)
    return {
      available: false,
      reason:
        (probe.error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `${sandboxExecPath} is missing`
          : `sandbox-exec could not start: ${probe.error.message}`,
    };
  if (probe.status !== 0)
    return {
      available: false,
      reason: `sandbox-exec does not work here (${probe.stderr.trim().split('\n')[0] || `exit ${probe.status}`})`,
    };
  return { available: true };
}

function probeBubblewrap(): SandboxAvailability {
  let availability: SandboxAvailability;
  const probe = spawnSync(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-pid',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      'true',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' },
  );
  if (probe.error) {
    const missing = (probe.error as NodeJS.ErrnoException).code === 'ENOENT';
    availability = {
      available: false,
      reason: missing
        ? 'bubblewrap (bwrap) is not installed'
        : `bwrap could not start: ${probe.error.message}`,
    };
  } else if (probe.status !== 0) {
    const detail = probe.stderr.trim().split('\n')[0] ?? '';
    availability = {
      available: false,
      reason: `bwrap does not work here (${detail || `exit ${probe.status}`})`,
    };
  } else {
    availability = { available: true };
  }
  return availability;
}

/** True when `child` is `parent` or below it (both canonical, absolute). */
function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/**
 * What a sandboxed command may write inside a git directory. Everything else there — config,
 * config.worktree, commondir, hooks/, info/, modules/, branches/, remotes/ and any name git may learn
 * to read later — is read-only, and the dangerous ones are covered even when missing.
 */
export const writableGitEntries: ReadonlySet<string> = new Set([
  'objects',
  'refs',
  'logs',
  'index',
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'COMMIT_EDITMSG',
  'TAG_EDITMSG',
  'SQUASH_MSG',
  'packed-refs',
  'shallow',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_RR',
  'AUTO_MERGE',
  'REBASE_HEAD',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'BISECT_LOG',
  'BISECT_START',
  'BISECT_TERMS',
  'BISECT_NAMES',
  'BISECT_EXPECTED_REV',
  'BISECT_ANCESTORS_OK',
  'BISECT_FIRST_PARENT',
  'NOTES_MERGE_PARTIAL',
  'NOTES_MERGE_REF',
  'NOTES_MERGE_WORKTREE',
  'rebase-merge',
  'rebase-apply',
  'sequencer',
  'rr-cache',
  'gc.pid',
  'gc.log',
  'description',
  'lfs',
  'locked',
  // Worktree administrative folders: the folder stays usable, each existing worktree inside is a
  // git directory of its own with the same allowlist.
  'worktrees',
]);

/**
 * Names git reads from a git directory that run code or redirect config, covered when missing.
 * (`info/` is writable for gc and sparse-checkout; only `info/attributes` in it is protected.)
 */
const gitEntriesCoveredWhenMissing: readonly {
  name: string;
  kind: 'file' | 'directory';
  content?: string;
}[] = [
  { name: 'config', kind: 'file' },
  { name: 'config.worktree', kind: 'file' },
  // An empty commondir breaks git; "." names the git directory itself, which is what git assumes.
  { name: 'commondir', kind: 'file', content: '.\n' },
  { name: 'hooks', kind: 'directory' },
  { name: 'modules', kind: 'directory' },
  // Legacy remote definitions git still reads.
  { name: 'branches', kind: 'directory' },
  { name: 'remotes', kind: 'directory' },
];

/** How deep and how wide the search for nested repositories inside a writable directory goes. */
const nestedRepositoryScan = { maxDepth: 3, maxDirectories: 1500 } as const;
const scanSkipped = new Set([
  'node_modules',
  '.git',
  'target',
  'dist',
  'build',
  '.venv',
  'venv',
  '__pycache__',
]);

/**
 * Placeholders (empty read-only directories or files covering missing protected paths), counted
 * per path across the calls of this process, so one call ending never uncovers a path another call
 * still relies on. When the last call using one ends it is removed after a short grace period (a
 * burst of calls reuses it instead of creating and removing dozens of folders each time), at once
 * when the process exits, and only while still empty.
 */
const placeholders = new Map<string, { users: number; placeholder: Placeholder; timer?: NodeJS.Timeout }>();

let exitHandlerInstalled = false;

/** How long an unused placeholder stays before it is removed (ms). */
export const placeholderGraceMs = 3_000;

type Placeholder = { path: string; kind: 'file' | 'directory'; size: number };

function acquirePlaceholder(path: string, kind: 'file' | 'directory', content = ''): Placeholder | undefined {
  const existing = placeholders.get(path);
  if (existing && entryKind(path) === (existing.placeholder.kind === 'file' ? 'file' : 'directory')) {
    clearTimeout(existing.timer);
    delete existing.timer;
    existing.users += 1;
    return existing.placeholder;
  }
  try {
    if (kind === 'directory') mkdirSync(path, { mode: 0o755 });
    else {
      const fd = openSync(path, 'wx', 0o444);
      try {
        if (content !== '') writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
    }
  } catch {
    // Something appeared there first (or the parent is read-only): bind what is there, if anything.
    return undefined;
  }
  const placeholder = { path, kind, size: Buffer.byteLength(content) };
  placeholders.set(path, { users: 1, placeholder });
  if (!exitHandlerInstalled) {
    exitHandlerInstalled = true;
    process.once('exit', () => removeAllPlaceholders(true));
  }
  return placeholder;
}

/**
 * True when `path` is a placeholder this process made and still keeps. Such a path looks like real
 * content to the next call, but it is not: that call must hold it too (so its grace-period timer
 * cannot remove it between building the command line and bwrap binding it) and treat it as missing.
 */
export function isPlaceholder(path: string): boolean {
  const entry = placeholders.get(path);
  return entry !== undefined && entryKind(path) === entry.placeholder.kind;
}

function releasePlaceholder(placeholder: Placeholder): void {
  const entry = placeholders.get(placeholder.path);
  if (!entry || entry.placeholder !== placeholder) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  entry.timer = setTimeout(() => {
    if (entry.users > 0) return;
    placeholders.delete(placeholder.path);
    removePlaceholder(placeholder);
  }, placeholderGraceMs);
  entry.timer.unref();
}

/** Removes every placeholder no call uses now without waiting for the grace period (`all`: in use too). */
export function removeAllPlaceholders(all = false): void {
  for (const [path, entry] of placeholders) {
    if (entry.users > 0 && !all) continue;
    clearTimeout(entry.timer);
    placeholders.delete(path);
    removePlaceholder(entry.placeholder);
  }
}

function removePlaceholder(placeholder: Placeholder): void {
  try {
    const info = lstatSync(placeholder.path);
    if (placeholder.kind === 'directory' && info.isDirectory()) rmdirSync(placeholder.path);
    else if (placeholder.kind === 'file' && info.isFile() && info.size === placeholder.size)
      unlinkSync(placeholder.path);
  } catch {
    // Gone, or no longer empty: leave it.
  }
}

/** Which backend builds the command line, and what it needs that the policy does not say. */
export interface SandboxBackendOptions {
  /** `darwin`: Seatbelt (`sandbox-exec -p PROFILE`); anything else: bubblewrap. Default: this machine. */
  platform?: NodeJS.Platform;
  /**
   * Seatbelt only: the proxy's loopback TCP port ({@link SandboxProxy.listenLoopback}) when the
   * policy has `networkProxy`. Without it such a command gets no network at all (failing closed).
   */
  proxyPort?: number;
}

/** Where macOS keeps the Seatbelt front end. */
export const sandboxExecPath = '/usr/bin/sandbox-exec';

/**
 * The command line that runs `command` (argv) under `policy` with `cwd` as working directory: bwrap
 * on Linux, `sandbox-exec` with a profile generated from the same policy on macOS
 * ({@link seatbeltInvocation}).
 */
export function buildSandboxInvocation(
  policy: SandboxPolicy,
  cwd: string,
  command: readonly string[],
  backend: SandboxBackendOptions = {},
): SandboxInvocation {
  if ((backend.platform ?? process.platform) === 'darwin')
    return seatbeltInvocation(policy, command, backend);
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc'];
  // --new-session: the command cannot reach a controlling terminal (TIOCSTI input injection). We
  // already spawn it detached, so job control inside `bash -c` is unaffected either way.
  args.push('--new-session');
  // No capabilities inside, even when efferent runs as root: with CAP_SYS_ADMIN a command could
  // remount every read-only bind writable, and with CAP_DAC_OVERRIDE read what is hidden from it.
  args.push('--cap-drop', 'ALL');
  if (!policy.allowNetwork) args.push('--unshare-net');
  const inheritedFds: number[] = [];
  const filter = policy.allowNetwork || policy.allowUnixSockets ? undefined : unixSocketFilter();
  if (filter) {
    inheritedFds.push(openFilterDescriptor(filter));
    // The child sees inherited descriptors from fd 3 on, in order.
    args.push('--seccomp', '3');
  }
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  // The session's own /tmp (same across its calls, never the host's), or a fresh one per call.
  if (policy.privateTmpDirectory && entryKind(policy.privateTmpDirectory) === 'directory')
    args.push('--bind', policy.privateTmpDirectory, '/tmp');
  else args.push('--tmpfs', '/tmp');

  const placeholders: Placeholder[] = [];
  const readOnlyPaths: string[] = [];
  const readOnly = (path: string) => {
    pinFoldersAbove(path);
    readOnlyPaths.push(path);
    args.push('--ro-bind', path, path);
  };
  /**
   * A mount protects a name, not a file: a folder above it that the command could rename would carry
   * the protected entry away and free its name (`mv tools t2 && mkdir -p tools/hooks` with
   * `core.hooksPath=tools/hooks`; `mv config c2` with `config/prod` hidden, then `cat c2/prod/key` on
   * the host). So every folder between a writable directory and a protected or hidden path is bound
   * onto itself, before that path's own mount: a mount point cannot be renamed (EBUSY). The folders
   * stay writable. Folders inside a read-only mount are left alone (they cannot be renamed, and a
   * bind would make them writable).
   */
  const pinnedFolders = new Set<string>();
  function pinFoldersAbove(path: string): void {
    const root = writable.filter((directory) => isInside(path, directory) && path !== directory).at(-1);
    if (root === undefined) return;
    const folders: string[] = [];
    for (let folder = dirname(path); folder !== root && isInside(folder, root); folder = dirname(folder))
      folders.push(folder);
    for (const folder of folders.reverse()) {
      if (readOnlyPaths.some((protectedPath) => isInside(folder, protectedPath))) return;
      if (pinnedFolders.has(folder)) continue;
      if (entryKind(folder) !== 'directory') return;
      pinnedFolders.add(folder);
      args.push('--bind', folder, folder);
    }
  }
  /** Read-only when present; covered by an empty read-only placeholder when missing. */
  const cover = (path: string, kind: 'file' | 'directory', content?: string) => {
    const found = entryKind(path);
    if (found === 'link') return coverLink(path);
    if (found !== 'missing' && !isPlaceholder(path)) return readOnly(path);
    const placeholder = acquirePlaceholder(path, kind, content);
    if (placeholder) placeholders.push(placeholder);
    if (entryKind(path) !== 'missing' && !isSymlink(path)) readOnly(path);
  };
  /** Read-only when present (its target, for a link); nothing when missing. */
  const keepReadOnly = (path: string) => {
    const found = entryKind(path);
    if (found === 'link') coverLink(path);
    else if (found === 'file' || found === 'directory') readOnly(path);
  };
  /** A link cannot be a mount point; its target is kept read-only when it is inside a writable tree. */
  const coverLink = (path: string) => {
    const target = realTarget(path);
    if (target && writable.some((directory) => isInside(target, directory))) readOnly(target);
  };

  // Parents before children, and directories under /tmp first: bwrap makes their mount points
  // inside the session's /tmp, before anything else it could be steered into is mounted.
  const writable = policy.writableDirectories
    .filter((directory) => entryKind(directory) === 'directory')
    .sort((a, b) => Number(!isInside(a, '/tmp')) - Number(!isInside(b, '/tmp')) || a.length - b.length);
  // What the program needs from the host's /tmp, read-only, before the writable folders so that
  // one of those inside it is mounted over it (and stays writable); the relay runs on this
  // process's Node, which could live there too. Never /tmp itself.
  const proxied = policy.networkProxy === true && !policy.allowNetwork;
  const tmpPaths = [...(policy.readOnlyTmpPaths ?? []), ...(proxied ? [process.execPath] : [])];
  for (const path of [...new Set(tmpPaths)].sort((a, b) => a.length - b.length)) {
    const kind = entryKind(path);
    if (
      path.startsWith('/tmp/') &&
      (kind === 'file' || kind === 'directory') &&
      !writable.some((d) => isInside(path, d))
    )
      readOnly(path);
  }
  const gitDirectories = new Set<string>();
  for (const directory of writable) {
    args.push('--bind', directory, directory);
    pinnedFolders.add(directory);
    // Each directory's protections follow its bind at once, so no later mount point can be made
    // (through a link a command planted) inside a protected path before it is covered.
    protectWorkspace(directory);
  }

  function protectWorkspace(directory: string): void {
    // No repository yet: the command cannot make the folder one (an empty read-only `.git`, which
    // git skips as it looks for a repository). Metadata it leaves elsewhere is the repository guard's.
    const gitEntry = join(directory, '.git');
    if (entryKind(gitEntry) === 'missing' || isPlaceholder(gitEntry)) cover(gitEntry, 'directory');
    else protectRepository(directory);
    for (const name of protectedWorkspaceEntries) {
      const path = join(directory, name);
      if (!coveredWorkspaceEntries.includes(name) && entryKind(path) === 'missing') continue;
      cover(path, 'directory');
    }
    const rootNames = namesIn(directory);
    for (const name of rootNames)
      if (protectedFilePatterns.some((pattern) => pattern.test(name.toLowerCase())))
        cover(join(directory, name), 'file');
    // The engine's further families (agent instructions, mise and version pins, other version
    // control, interpreter start-up files…): read-only where they exist, so an allowed command cannot
    // change what a trusted file runs or tells the next session. Missing ones are not covered: a new
    // one is not yet trusted by the tool that reads it, and covering dozens would litter the project.
    for (const name of rootNames) if (isProtectedFamilyName(name)) keepReadOnly(join(directory, name));
    for (const nestedPath of protectedFamilyNestedPaths) keepReadOnly(join(directory, nestedPath));
    const hooksPath = configuredHooksDirectory(directory, join(directory, '.git'));
    if (hooksPath) cover(hooksPath, 'directory');
    for (const nested of nestedRepositories(directory)) protectRepository(nested);
  }

  /** The `.git` of a working tree: a directory, a file naming the git directory, or a link. */
  function protectRepository(worktree: string): void {
    const gitEntry = join(worktree, '.git');
    const kind = entryKind(gitEntry);
    if (kind === 'directory') protectGitDirectory(gitEntry, 'main');
    else if (kind === 'file') {
      // A worktree's or submodule's `.git` file names the repository git trusts: keep it as it is.
      readOnly(gitEntry);
      const gitDirectory = gitFileTarget(gitEntry);
      if (gitDirectory && writable.some((directory) => isInside(gitDirectory, directory)))
        protectGitDirectory(gitDirectory, 'linked');
    } else if (kind === 'link') {
      const target = realTarget(gitEntry);
      if (target && entryKind(target) === 'directory' && writable.some((d) => isInside(target, d)))
        protectGitDirectory(target, 'main');
    }
  }

  /**
   * A git directory: bound onto itself (a mount point cannot be renamed away and replaced by a
   * repository whose config runs code), the allowlisted state writable, everything else read-only,
   * and the names that would run code covered when missing. Worktree and submodule git
   * directories inside it get the same treatment.
   */
  function protectGitDirectory(gitDirectory: string, role: 'main' | 'linked' | 'module', depth = 0): void {
    if (gitDirectories.has(gitDirectory) || depth > 4) return;
    gitDirectories.add(gitDirectory);
    pinFoldersAbove(gitDirectory);
    pinnedFolders.add(gitDirectory);
    args.push('--bind', gitDirectory, gitDirectory);
    let names: string[] = [];
    try {
      // Placeholders a recent call left are covered again below (held, not merely bound).
      names = readdirSync(gitDirectory).filter((name) => !isPlaceholder(join(gitDirectory, name)));
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(gitDirectory, name);
      if (name === 'worktrees' && entryKind(path) === 'directory') {
        pinnedFolders.add(path);
        args.push('--bind', path, path);
        for (const worktree of subdirectories(path)) protectGitDirectory(worktree, 'linked', depth + 1);
      } else if (name === 'info' && entryKind(path) === 'directory') {
        // gc and sparse-checkout write here (info/refs, info/sparse-checkout); attributes name
        // diff and filter drivers, so that one file stays read-only, covered when missing.
        pinnedFolders.add(path);
        args.push('--bind', path, path);
        cover(join(path, 'attributes'), 'file');
        for (const entry of ['attributes', 'exclude', 'grafts']) {
          if (entry !== 'attributes' && entryKind(join(path, entry)) !== 'missing')
            cover(join(path, entry), 'file');
        }
      } else if (name === 'modules' && entryKind(path) === 'directory') {
        readOnly(path);
        for (const module of submoduleGitDirectories(path)) protectGitDirectory(module, 'module', depth + 1);
      } else if (entryKind(path) === 'link') coverLink(path);
      else if (!writableGitEntries.has(name) && !name.endsWith('.lock') && !name.startsWith('sharedindex.'))
        readOnly(path);
    }
    // info/ is part of every repository's layout (git init makes it): when missing it is created,
    // not covered, so the file inside that matters can be.
    if (role !== 'linked' && !names.includes('info')) {
      try {
        mkdirSync(join(gitDirectory, 'info'), { mode: 0o755 });
        names.push('info');
        pinnedFolders.add(join(gitDirectory, 'info'));
        args.push('--bind', join(gitDirectory, 'info'), join(gitDirectory, 'info'));
        cover(join(gitDirectory, 'info', 'attributes'), 'file');
      } catch {
        // A read-only git directory: nothing can be created there by the command either.
      }
    }
    for (const { name, kind, content } of gitEntriesCoveredWhenMissing) {
      // A linked worktree's git directory reads config and hooks from the common directory.
      if (role === 'linked' && name !== 'config.worktree') continue;
      if (!names.includes(name)) cover(join(gitDirectory, name), kind, content);
    }
  }

  if (writable.some((directory) => isInside(policy.homeDirectory, directory))) {
    for (const entry of protectedHomeEntries) {
      const path = join(policy.homeDirectory, entry);
      if (entryKind(path) !== 'missing') cover(path, 'file');
      else if (isInside(dirname(path), policy.homeDirectory) && entryKind(dirname(path)) === 'directory')
        cover(path, entry.includes('/') || entry === '.ssh' ? 'directory' : 'file');
    }
  }

  // The session directory (output files, cwd files, todo lists, persisted results) is efferent's
  // host-side state: read-only to the command, so nothing there can be swapped for a link. When it
  // lies inside a writable directory, its first folder there is kept read-only too, so no parent
  // can be renamed and replaced either.
  const session = policy.sessionDirectory;
  const container = writable.find((directory) => isInside(session, directory) && session !== directory);
  if (container) {
    const first = relative(container, session).split(sep)[0] as string;
    if (entryKind(join(container, first)) === 'directory') readOnly(join(container, first));
  } else if (entryKind(session) === 'directory') readOnly(session);
  for (const file of policy.writableSessionFiles ?? []) {
    if (isInside(file, session) && entryKind(file) === 'file') args.push('--bind', file, file);
  }

  // Last: what the user's Read deny rules cover is unreadable to the command, whatever names it.
  const hidden: string[] = [];
  for (const path of [...(policy.hiddenPaths ?? [])].sort((a, b) => a.length - b.length)) {
    if (hidden.some((parent) => isInside(path, parent))) continue;
    const kind = entryKind(path);
    if (kind === 'directory' || kind === 'file') pinFoldersAbove(path);
    if (kind === 'directory') args.push('--perms', '0000', '--tmpfs', path);
    else if (kind === 'file') args.push('--ro-bind', unreadableFile(), path);
    else continue;
    hidden.push(path);
  }

  if (proxied) {
    for (const [name, value] of Object.entries(proxyEnvironment())) args.push('--setenv', name, value);
  }
  args.push('--chdir', cwd, '--', ...(proxied ? relayCommand(command) : command));

  return {
    file: 'bwrap',
    args,
    inheritedFds,
    ...(proxied ? { needsIpc: true } : {}),
    protectedGitDirectories: [...gitDirectories],
    readOnlyPaths,
    cleanup() {
      for (const fd of inheritedFds.splice(0)) closeDescriptor(fd);
      for (const placeholder of placeholders.splice(0)) releasePlaceholder(placeholder);
    },
  };
}

/**
 * The macOS command line: `sandbox-exec -p PROFILE` then, through `/usr/bin/env`, `TMPDIR` set to
 * the private temp folder (the only temp folder the profile lets it write) and, behind the proxy,
 * the proxy variables pointing at its loopback port (HTTP and SOCKS5 share it). The caller spawns
 * it in `cwd`; nothing needs cleaning up, since Seatbelt names paths instead of mounting covers.
 */
export function seatbeltInvocation(
  policy: SandboxPolicy,
  command: readonly string[],
  backend: SandboxBackendOptions = {},
): SandboxInvocation {
  const port = policy.networkProxy === true && !policy.allowNetwork ? backend.proxyPort : undefined;
  const ports = port === undefined ? undefined : { http: port, socks: port };
  const profile = seatbeltProfile(policy, ports ? { proxyPorts: ports } : {});
  const variables = [
    ...(policy.privateTmpDirectory ? [`TMPDIR=${policy.privateTmpDirectory}/`] : []),
    ...(ports ? Object.entries(proxyEnvironment(ports)).map(([name, value]) => `${name}=${value}`) : []),
  ];
  return {
    file: sandboxExecPath,
    args: ['-p', profile, ...(variables.length > 0 ? ['/usr/bin/env', ...variables] : []), ...command],
    inheritedFds: [],
    cleanup() {},
  };
}

/** Root entries of `directory` whose names match a protected pattern (`.yarnrc.yml`, `lefthook.yml`…). */
/** The names in a directory; none when it cannot be read. */
function namesIn(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/** Recent answers of {@link nestedRepositories}: path -> when and what. */
const nestedRepositoryCache = new Map<string, { at: number; found: string[] }>();

/** How long a search for nested repositories is reused (ms): repositories a user creates are rare. */
export const nestedRepositoryCacheMs = 30_000;

/**
 * Working trees of repositories nested inside `directory` (their `.git` a directory, file or link),
 * found by a bounded breadth-first walk that never follows links, reused for a short while.
 * Repositories a sandboxed command creates itself need no protection (it wrote their config);
 * this finds the ones the user made.
 */
export function nestedRepositories(directory: string, now = Date.now()): string[] {
  const cached = nestedRepositoryCache.get(directory);
  if (cached && now - cached.at < nestedRepositoryCacheMs) return cached.found;
  const found: string[] = [];
  let level = [directory];
  let visited = 0;
  search: for (let depth = 0; depth <= nestedRepositoryScan.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const parent of level) {
      if (++visited > nestedRepositoryScan.maxDirectories) break search;
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(parent, { withFileTypes: true });
      } catch {
        continue;
      }
      if (parent !== directory && entries.some((entry) => entry.name === '.git')) found.push(parent);
      if (depth === nestedRepositoryScan.maxDepth) continue;
      for (const entry of entries) {
        if (!entry.isDirectory() || scanSkipped.has(entry.name)) continue;
        if (protectedDirectoryNames.includes(entry.name)) continue;
        next.push(join(parent, entry.name));
      }
    }
    level = next;
  }
  nestedRepositoryCache.set(directory, { at: now, found });
  return found;
}

/** Forgets the nested repositories found in `directory`, so the next call searches again (one just appeared). */
export function forgetNestedRepositories(directory: string): void {
  nestedRepositoryCache.delete(directory);
}

/** The git directory a `.git` file names (`gitdir: <path>`), resolved, or undefined. */
function gitFileTarget(gitFile: string): string | undefined {
  try {
    const read = readOwnFileSync(gitFile, { maxBytes: 4096, cutOversize: true });
    if (read.kind !== 'read') return undefined;
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(read.text);
    return match?.[1] ? realpathSync(resolve(dirname(gitFile), match[1])) : undefined;
  } catch {
    return undefined;
  }
}

function realTarget(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The directory `core.hooksPath` in the repository's config names, when it lies inside the
 * workspace (husky and similar point it at a tracked folder): git runs whatever is there.
 */
function configuredHooksDirectory(workspace: string, gitDirectory: string): string | undefined {
  const read = readOwnFileSync(join(gitDirectory, 'config'), { maxBytes: 1024 * 1024 });
  if (read.kind !== 'read') return undefined;
  const config = read.text;
  const match = /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(config);
  const value = match?.[1]?.replace(/^"(.*)"$/, '$1');
  if (!value) return undefined;
  const path = resolve(workspace, value);
  return isInside(path, workspace) && path !== workspace ? path : undefined;
}

function entryKind(path: string): 'missing' | 'file' | 'directory' | 'link' | 'other' {
  try {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return 'link';
    return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

function subdirectories(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(path, entry.name));
  } catch {
    return [];
  }
}

/**
 * The git directories of submodules under `.git/modules` (names may contain slashes, so a folder
 * without a HEAD is searched one level further).
 */
function submoduleGitDirectories(modules: string, depth = 0): string[] {
  const found: string[] = [];
  for (const path of subdirectories(modules)) {
    if (entryKind(join(path, 'HEAD')) === 'file') found.push(path);
    else if (depth < 3) found.push(...submoduleGitDirectories(path, depth + 1));
  }
  return found;
}

function isSymlink(path: string): boolean {
  return entryKind(path) === 'link';
}

let unreadable: string | undefined;

/** An empty file nobody may read, bound over files the user's Read deny rules cover. */
function unreadableFile(): string {
  if (unreadable && entryKind(unreadable) === 'file') return unreadable;
  const directory = mkdtempSync(join(tmpdir(), 'efferent-hidden-'));
  const path = join(directory, 'hidden');
  closeSync(openSync(path, 'wx', 0o000));
  chmodSync(path, 0o000);
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  unreadable = path;
  return path;
}

/**
 * The session's private /tmp for sandboxed commands: one host directory per session, bound as /tmp
 * in every call (so files survive between calls, as in a shell), invisible to the host's /tmp users
 * and removed when the session is disposed. Host-side code never writes there.
 */
export class SandboxTmp implements SessionResource {
  #path: string | undefined;

  /** The directory, created on first use. */
  get path(): string {
    this.#path ??= realpathSync(mkdtempSync(join(tmpdir(), 'efferent-sandbox-tmp-')));
    return this.#path;
  }

  dispose(): void {
    const path = this.#path;
    this.#path = undefined;
    if (path) removeTree(path);
  }
}

/** The session's private sandbox /tmp. */
export const sandboxTmpKey: SessionResourceKey<SandboxTmp> = {
  name: 'sandbox-tmp',
  create: () => new SandboxTmp(),
};

/** Removes a tree a sandboxed command wrote, including folders it made unreadable; never follows links. */
function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch {
    // Folders without write or search permission: open them up (never through a link), then retry.
  }
  const open = (directory: string) => {
    try {
      if (!lstatSync(directory).isDirectory()) return;
      chmodSync(directory, 0o700);
      for (const name of readdirSync(directory)) open(join(directory, name));
    } catch {
      // Vanished meanwhile.
    }
  };
  open(path);
  rmSync(path, { recursive: true, force: true });
}
