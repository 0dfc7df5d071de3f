import {
  type BigIntStats,
  closeSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { readOwnFileSync } from '../core/index.ts';
import { mayNameProtectedEntry, protectedEntryReason } from '../core/protected-paths.ts';
import { openDirectoryBeneath } from '../core/session-files.ts';
import {
  committedFiles,
  noteCommandCommits,
  type RepositorySnapshot,
  resetCommandCommits,
  snapshotRepository,
} from './committed-content.ts';
import { forgetNestedRepositories, isPlaceholder } from './sandbox.ts';

/**
 * Repository metadata a sandboxed command creates or changes in its writable folders. Git trusts a
 * repository's own configuration and hooks, so a `.git` (directory, `gitdir:` file or link) or a
 * bare-repository layout (`HEAD` with `objects` and `refs`, or a `commondir`) that a command leaves
 * behind would make the user's next `git status` there — or their editor's — run what the command
 * wrote. The guard indexes the directories of each writable folder (change time per directory), takes
 * the metadata present before a command, and afterwards every entry that is new or changed is judged
 * against an allowlist of what git itself writes when it creates a repository (`git init`,
 * `git clone`). Anything else is moved into `<root>/.efferent/quarantine/` before efferent returns.
 */

/** How many directories of one writable folder are indexed; beyond that, the rest is not watched. */
export const repositoryGuardLimits = { maxDirectories: 50_000 } as const;

/** Folders never searched: dependency trees git never enters and efferent's own quarantine. */
const skippedNames: ReadonlySet<string> = new Set(['node_modules']);

/**
 * Dependency trees searched for repository metadata but not for protected entries (`lib/python3.12/
 * site-packages`, `Lib/site-packages`): installers write `.pth` files and packages' own dot-files
 * there, and no editor or agent reads instructions from them.
 */
const dependencyTreeNames: ReadonlySet<string> = new Set(['site-packages', 'dist-packages']);

/** The names in a git directory whose content decides what git runs. */
const identityNames = ['config', 'config.worktree', 'commondir', 'hooks', 'modules'] as const;

interface DirectoryRecord {
  /** Inode and change time: a directory's ctime moves whenever an entry is created, removed or renamed. */
  change: string;
  /** Metadata in this directory: path -> identity (changes whenever git would read something else). */
  metadata: Map<string, string>;
  /** The subdirectories indexed below it. */
  children: Set<string>;
  /**
   * Protected entries in this directory (the names the permission engine asks before writing, see
   * `protectedEntryReason`): path -> identity. A directory's identity is its inode, a file's or
   * link's its inode and change time, so creating, replacing or writing one changes it.
   */
  guarded: Map<string, string>;
  /** Every entry here is protected: the directory is one (`.vscode`) or lies inside one. */
  insideProtected: boolean;
  /** A dependency tree (or inside one): protected entries are not tracked here. */
  dependencyTree: boolean;
  /** Symbolic links in this directory (by path and inode), whatever their names. */
  links: Map<string, string>;
}

/** The directory index of one writable folder, refreshed by change time. */
class WorkspaceIndex {
  readonly directories = new Map<string, DirectoryRecord>();
  /** True when the folder had more directories than the limit: the rest is not watched. */
  truncated = false;
  /** Directories that could not be listed at the last refresh (a command made them unreadable). */
  readonly unreadable = new Set<string>();

  constructor(readonly root: string) {}

  /** Re-reads every directory whose change time moved (all of them the first time); returns the metadata. */
  refresh(): Map<string, string> {
    if (this.directories.size === 0) this.#walk(this.root);
    else {
      for (const [path, record] of [...this.directories]) {
        if (!this.directories.has(path)) continue;
        const change = changeKey(path);
        if (change === undefined) this.#forget(path);
        else if (change !== record.change) this.#read(path, change);
        else {
          if (record.metadata.size > 0) record.metadata = metadataIn(path, undefined);
          // Same names as before; their content may have changed.
          for (const entry of record.guarded.keys()) record.guarded.set(entry, guardedIdentity(entry));
          for (const entry of record.links.keys()) record.links.set(entry, guardedIdentity(entry));
        }
      }
    }
    const all = new Map<string, string>();
    for (const record of this.directories.values())
      for (const [path, identity] of record.metadata) all.set(path, identity);
    return all;
  }

  /** The symbolic links found at the last refresh: path -> identity. */
  linkEntries(): Map<string, string> {
    const all = new Map<string, string>();
    for (const record of this.directories.values())
      for (const [path, identity] of record.links) all.set(path, identity);
    return all;
  }

  /** The protected entries found at the last refresh: path -> identity. */
  guardedEntries(): Map<string, string> {
    const all = new Map<string, string>();
    for (const record of this.directories.values())
      for (const [path, identity] of record.guarded) all.set(path, identity);
    return all;
  }

  /** Whether the engine protects `path` (judged as a path inside the writable folder). */
  #protects(path: string): boolean {
    const inside = relative(this.root, path);
    return inside !== '' && protectedEntryReason(inside) !== undefined;
  }

  #forget(path: string): void {
    const record = this.directories.get(path);
    this.directories.delete(path);
    for (const child of record?.children ?? []) this.#forget(child);
  }

  #walk(start: string): void {
    const change = changeKey(start);
    if (change !== undefined) this.#read(start, change);
  }

  /** Reads one directory: its metadata, and any subdirectory not indexed yet (walked at once). */
  #read(path: string, change: string): void {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
      this.unreadable.delete(path);
    } catch {
      this.unreadable.add(path);
      this.directories.delete(path);
      return;
    }
    const names = entries.map((entry) => entry.name);
    const previous = this.directories.get(path)?.children ?? new Set<string>();
    const children = new Set<string>();
    const parent = path === this.root ? undefined : this.directories.get(dirname(path));
    const dependencyTree =
      parent?.dependencyTree === true ||
      (dependencyTreeNames.has(basename(path)) && /^(?:python\d[\d.]*|lib)$/i.test(basename(dirname(path))));
    const insideProtected =
      !dependencyTree &&
      (parent?.insideProtected === true || (parent?.guarded.has(path) ?? this.#protects(path)));
    const guarded = new Map<string, string>();
    for (const name of dependencyTree ? [] : names) {
      // A `.git` is the metadata's, judged above; the root's `.efferent` holds the quarantine.
      if (name === '.git' || (path === this.root && name === '.efferent')) continue;
      const entry = join(path, name);
      if (insideProtected || (mayNameProtectedEntry(name) && this.#protects(entry)))
        guarded.set(entry, guardedIdentity(entry));
    }
    const links = new Map<string, string>();
    for (const entry of entries)
      if (entry.isSymbolicLink()) links.set(join(path, entry.name), guardedIdentity(join(path, entry.name)));
    this.directories.set(path, {
      change,
      metadata: metadataIn(path, names),
      children,
      guarded,
      insideProtected,
      dependencyTree,
      links,
    });
    // A git directory's own folders (objects, refs) are git's, not the workspace's.
    const searched = !isGitDirectoryLayout(names) || path === this.root;
    for (const entry of searched ? entries : []) {
      if (!entry.isDirectory() || entry.name === '.git' || skippedNames.has(entry.name)) continue;
      const child = join(path, entry.name);
      if (child === join(this.root, '.efferent')) continue;
      children.add(child);
    }
    for (const known of previous) if (!children.has(known)) this.#forget(known);
    for (const child of children) {
      if (this.directories.has(child)) continue;
      if (this.directories.size >= repositoryGuardLimits.maxDirectories) {
        this.truncated = true;
        return;
      }
      this.#walk(child);
    }
  }
}

/** `ino:ctime` of a directory (nanoseconds), or undefined when it is gone or not a directory. */
function changeKey(path: string): string | undefined {
  try {
    const info = lstatSync(path, { bigint: true });
    return info.isDirectory() ? `${info.ino}:${info.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

function lstatQuiet(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** True when the names are what git recognises as a git directory (a bare repository). */
function isGitDirectoryLayout(names: readonly string[]): boolean {
  const has = (name: string) => names.includes(name);
  return has('HEAD') && ((has('objects') && has('refs')) || has('commondir'));
}

/** Identity of a protected entry: a directory by inode, anything else by inode and change time. */
function guardedIdentity(path: string): string {
  const info = lstatQuiet(path);
  if (!info) return '-';
  if (info.isDirectory()) return `d${info.ino}`;
  const kind = info.isSymbolicLink() ? 'l' : info.isFile() ? 'f' : 'o';
  return `${kind}${info.ino}:${info.ctimeNs}`;
}

/** Identity of one entry: kind, inode and change time ("-" when missing). */
function entryIdentity(path: string): string {
  const info = lstatQuiet(path);
  if (!info) return '-';
  const kind = info.isSymbolicLink() ? 'l' : info.isDirectory() ? 'd' : 'f';
  return `${kind}${info.ino}:${info.ctimeNs}`;
}

/** The identity of a git directory: what git would read from it to decide what to run. */
function gitDirectoryIdentity(path: string): string {
  return identityNames.map((name) => `${name}=${entryIdentity(join(path, name))}`).join(' ');
}

/** The repository metadata directly in `directory`: its `.git` entry, or the directory itself as a bare layout. */
function metadataIn(directory: string, names: readonly string[] | undefined): Map<string, string> {
  const found = new Map<string, string>();
  const listed = names ?? safeNames(directory);
  if (listed.includes('.git')) {
    const entry = join(directory, '.git');
    const info = lstatQuiet(entry);
    if (info?.isDirectory()) found.set(entry, `dir ${info.ino} ${gitDirectoryIdentity(entry)}`);
    else if (info) found.set(entry, `${entryIdentity(entry)} ${realOrNothing(entry)}`);
  }
  if (isGitDirectoryLayout(listed)) found.set(directory, `bare ${gitDirectoryIdentity(directory)}`);
  return found;
}

function safeNames(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function realOrNothing(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return '';
  }
}

const indexes = new Map<string, WorkspaceIndex>();

/** Forgets every index (tests; a long-lived process never needs it). */
export function resetRepositoryGuard(): void {
  indexes.clear();
  hostWrites.clear();
  resetCommandCommits();
}

function indexFor(root: string): WorkspaceIndex {
  let index = indexes.get(root);
  if (!index) {
    index = new WorkspaceIndex(root);
    indexes.set(root, index);
  }
  return index;
}

/** What one sandboxed command found and did with repository metadata it left behind. */
export interface RepositoryGuardReport {
  /** One sentence per entry moved aside (or that could not be), for the model and the user. */
  notes: string[];
  /** Where each neutralised entry went: original path -> quarantine path. */
  quarantined: Map<string, string>;
}

/** The guard for one command: created before it starts, finished once it has ended. */
export interface RepositoryGuard {
  /**
   * Judges every metadata entry that is new or changed since the guard was created and moves aside
   * those git would run code from. `trusted` are git directories the sandbox kept read-only for the
   * command (their changes come from the host, not from the command). Then moves aside every
   * protected entry the command created or changed, except inside `readOnly`, the paths the sandbox
   * kept read-only for it, and every link it made into `commandOnly`: host folders only commands
   * write (the session's private /tmp), which a program outside the sandbox must not be led into.
   */
  finish(
    trusted?: readonly string[],
    readOnly?: readonly string[],
    commandOnly?: readonly string[],
  ): RepositoryGuardReport;
}

interface RootState {
  /** The commits the root's repository named (its content at those paths is the user's history). */
  repository?: RepositorySnapshot | undefined;
  metadata: Map<string, string>;
  guarded: Map<string, string>;
  links: Map<string, string>;
  unreadable: Set<string>;
  truncated: boolean;
}

function stateOf(index: WorkspaceIndex): RootState {
  const metadata = index.refresh();
  return {
    metadata,
    guarded: index.guardedEntries(),
    links: index.linkEntries(),
    unreadable: new Set(index.unreadable),
    truncated: index.truncated,
  };
}

/**
 * Starts watching `roots` (canonical writable folders) for one command: indexes them (the first time
 * a full walk, then only directories whose change time moved) and notes the metadata there now.
 */
export function startRepositoryGuard(roots: readonly string[]): RepositoryGuard {
  const before = new Map<string, RootState>();
  for (const root of roots)
    before.set(root, { ...stateOf(indexFor(root)), repository: snapshotRepository(root) });
  return {
    finish(trusted = [], readOnly = [], commandOnly = []) {
      const report: RepositoryGuardReport = { notes: [], quarantined: new Map() };
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      for (const [root, earlierState] of before) {
        const earlier = earlierState.metadata;
        const nowState = stateOf(indexFor(root));
        const now = nowState.metadata;
        let serial = 0;
        for (const [path, identity] of now) {
          if (earlier.get(path) === identity) continue;
          // A repository appeared or changed: the next call's search must see it (and protect it).
          forgetNestedRepositories(root);
          if (trusted.some((directory) => isInside(path, directory))) continue;
          const concern = judgeMetadata(path, root, trusted);
          if (concern === undefined) continue;
          serial += 1;
          neutralise(root, path, concern, `${stamp}-${serial}`, report);
        }
        const changed = changedProtectedEntries(earlierState.guarded, nowState.guarded, readOnly);
        for (const path of unitsToSetAside(root, changed, nowState.guarded, earlierState.repository)) {
          serial += 1;
          setAside(root, path, `${stamp}-${serial}`, report);
        }
        const escapes = commandOnly.map((directory) => realOrNothing(directory) || directory);
        for (const [link, identity] of escapes.length > 0 ? nowState.links : []) {
          if (earlierState.links.get(link) === identity || !lstatQuiet(link)?.isSymbolicLink()) continue;
          const target = linkTarget(link);
          const into = escapes.find((directory) => isInside(target, directory));
          if (into === undefined) continue;
          serial += 1;
          setAsideLink(root, link, target, `${stamp}-${serial}`, report);
        }
        for (const directory of nowState.unreadable) {
          if (earlierState.unreadable.has(directory)) continue;
          report.notes.push(
            `After the command, ${displayPath(directory, root)} could not be read, so efferent could not check it for protected files (agent instructions, editor or tool configuration) or git metadata the command may have left there. Tell the user to look at it before opening the project in an editor or running git there.`,
          );
        }
        noteCommandCommits(root, earlierState.repository);
        // The quarantine only grows when something was moved: bound it then (this command's entries stay).
        if (serial > 0) {
          const keep = new Set(Array.from({ length: serial }, (_, index) => `${stamp}-${index + 1}`));
          pruneQuarantine(root, quarantineLimits, keep);
        }
        if (nowState.truncated && !earlierState.truncated)
          report.notes.push(
            `After the command, ${root} holds more than ${repositoryGuardLimits.maxDirectories.toLocaleString('en-US')} folders, so efferent could not check all of them for protected files or git metadata the command may have left. Tell the user.`,
          );
        // What was moved is gone from the index at its next refresh.
      }
      return report;
    },
  };
}

/**
 * Files efferent's own tools wrote (after the user's approval) while a command ran: path -> the
 * identity right after the write. Only the host can produce that inode and change time, so a
 * command changing the file afterwards is still seen.
 */
const hostWrites = new Map<string, string>();

/** Notes a file efferent itself just wrote (the file tools' atomic write), so the guard leaves it. */
export function noteHostWrite(path: string): void {
  if (hostWrites.size >= 10_000) hostWrites.clear();
  hostWrites.set(path, guardedIdentity(path));
}

/**
 * Protected entries that are new or changed, leaving out efferent's own placeholders and writes and
 * what the sandbox kept read-only (a change there came from the host).
 */
function changedProtectedEntries(
  earlier: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
  readOnly: readonly string[],
): string[] {
  const changed: string[] = [];
  for (const [path, identity] of now) {
    if (identity === '-' || earlier.get(path) === identity) continue;
    if (readOnly.some((directory) => isInside(path, directory)) || isPlaceholder(path)) continue;
    if (hostWrites.get(path) === identity) continue;
    changed.push(path);
  }
  return changed.sort((a, b) => a.length - b.length);
}

/**
 * What to move aside among the changed protected entries, outermost first. A file whose content is
 * what the user's repository held at that path before the command (a `git checkout` or `git stash
 * pop` wrote it) stays; a directory stays as such (an empty `.vscode` runs nothing), but a new one
 * that holds only what must go is moved whole, not file by file.
 */
function unitsToSetAside(
  root: string,
  changed: readonly string[],
  now: ReadonlyMap<string, string>,
  repository: RepositorySnapshot | undefined,
): string[] {
  if (changed.length === 0) return [];
  const files = changed.filter((path) => now.get(path)?.startsWith('f'));
  const committed = files.length > 0 ? committedFiles(root, repository, files) : new Set<string>();
  const unwanted = changed.filter((path) => {
    if (committed.has(path)) return false;
    if (!now.get(path)?.startsWith('d')) return true;
    // A directory is judged by what it holds; one whose entries the index does not see (inside a
    // folder with git's layout, or a folder never entered) goes whole unless it is empty.
    return !isIndexedBelow(path, now) && safeNames(path).length > 0;
  });
  if (unwanted.length === 0) return [];
  const changedSet = new Set(changed);
  /** A changed directory all of whose protected entries must go. */
  const wholly = (directory: string) =>
    [...now.keys()].every(
      (path) =>
        path === directory || !isInside(path, directory) || (changedSet.has(path) && !committed.has(path)),
    );
  const units: string[] = [];
  for (const path of unwanted) {
    if (units.some((unit) => isInside(path, unit))) continue;
    const container = changed.find(
      (candidate) =>
        candidate !== path &&
        isInside(path, candidate) &&
        now.get(candidate)?.startsWith('d') &&
        wholly(candidate),
    );
    units.push(container ?? path);
  }
  return units;
}

/** Where a link leads: its real path, or (dangling) its text resolved against its folder. */
function linkTarget(link: string): string {
  const real = realOrNothing(link);
  if (real) return real;
  try {
    return resolve(dirname(link), readlinkSync(link));
  } catch {
    return '';
  }
}

/** Moves a link into the command's own folders aside: outside the sandbox it would lead there. */
function setAsideLink(
  root: string,
  link: string,
  target: string,
  label: string,
  report: RepositoryGuardReport,
): void {
  const shown = displayPath(link, root);
  const destination = join(quarantineFolder, label);
  try {
    moveBeneath(root, dirname(link), [basename(link)], destination, link);
    const where = join(root, destination);
    report.quarantined.set(link, join(where, basename(link)));
    report.notes.push(
      `The command left the link ${shown} leading to ${target}, in its private /tmp, which no program outside the sandbox should read from; efferent moved the link to ${where}. Write files the project needs inside the working directory instead.`,
    );
  } catch (error) {
    report.notes.push(
      `The command left the link ${shown} leading to ${target}, in its private /tmp, and efferent could not move it aside (${(error as Error).message}). Tell the user to remove it.`,
    );
  }
}

/** True when some protected entry inside `directory` is known (so its entries were looked at). */
function isIndexedBelow(directory: string, now: ReadonlyMap<string, string>): boolean {
  for (const path of now.keys()) if (path !== directory && isInside(path, directory)) return true;
  return false;
}

/** Moves one protected entry the command created or changed into the quarantine, and says so. */
function setAside(root: string, path: string, label: string, report: RepositoryGuardReport): void {
  const shown = displayPath(path, root);
  const reason = protectedEntryReason(shown) ?? 'it is protected';
  const destination = join(quarantineFolder, label);
  try {
    moveBeneath(root, dirname(path), [basename(path)], destination, path);
    const where = join(root, destination);
    report.quarantined.set(path, join(where, basename(path)));
    report.notes.push(
      `The command created or changed ${shown}, which commands in the sandbox may not write (${reason}); efferent moved it to ${where}. If the user wants it, they can check it and move it back, or the command can be run outside the sandbox (dangerouslyDisableSandbox, which asks the user).`,
    );
  } catch (error) {
    report.notes.push(
      `The command created or changed ${shown}, which commands in the sandbox may not write (${reason}), and efferent could not move it aside (${(error as Error).message}). Tell the user to check it before any program reads it.`,
    );
  }
}

/**
 * Renames `names` from `source` into `destination` (below `root`) and records where they came from.
 * Every folder on the way is opened without following links, so a racing command cannot steer it.
 */
function moveBeneath(
  root: string,
  source: string,
  names: readonly string[],
  destination: string,
  origin: string,
): void {
  const into = openDirectoryBeneath(root, destination.split(sep), true);
  let from: number | undefined;
  try {
    from = openDirectoryBeneath(root, relative(root, source).split(sep), false);
    for (const name of names) renameSync(`/proc/self/fd/${from}/${name}`, `/proc/self/fd/${into}/${name}`);
    writeFileSync(`/proc/self/fd/${into}/ORIGIN`, `${origin}\n`, { flag: 'wx', mode: 0o600 });
  } finally {
    closeSync(into);
    if (from !== undefined) closeSync(from);
  }
}

/** How much the quarantine keeps: entries older than the age, and past the count or size the oldest, go. */
export interface QuarantineLimits {
  maxAgeMs: number;
  maxEntries: number;
  maxBytes: number;
}

export const defaultQuarantineLimits: QuarantineLimits = {
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  maxEntries: 200,
  maxBytes: 256 * 1024 * 1024,
};

/** The limits the guard applies after each command that moved something (tests lower them). */
let quarantineLimits: QuarantineLimits = defaultQuarantineLimits;

/** Sets the quarantine's limits (undefined: the defaults); tests use it to see the bound applied. */
export function setQuarantineLimits(limits: QuarantineLimits | undefined): void {
  quarantineLimits = limits ?? defaultQuarantineLimits;
}

/** Files counted in one entry before it is taken as too big to keep (a moved `.git` can be huge). */
const sizeWalkLimit = 20_000;

/**
 * Bounds `<root>/.efferent/quarantine`: entries (one folder per move, named by the time it was made)
 * older than `maxAgeMs` are removed, then the oldest until at most `maxEntries` remain and together
 * they hold at most `maxBytes`. The entries named in `keep` (this command's) stay whatever their
 * size, so the paths the report gives stay true. Removal goes through a descriptor of the
 * quarantine folder opened without following links, so a link planted on the way cannot steer it
 * elsewhere. Returns the names removed.
 */
export function pruneQuarantine(
  root: string,
  limits: QuarantineLimits = defaultQuarantineLimits,
  keep: ReadonlySet<string> = new Set(),
  now = Date.now(),
): string[] {
  let folder: number;
  try {
    folder = openDirectoryBeneath(root, quarantineFolder.split(sep), false);
  } catch {
    return [];
  }
  const removed: string[] = [];
  try {
    const base = `/proc/self/fd/${folder}`;
    const entries = readdirSync(base)
      .map((name) => {
        const info = lstatQuiet(join(base, name));
        return { name, made: entryTime(name) ?? Number(info?.mtimeMs ?? 0) };
      })
      .sort((a, b) => a.made - b.made || a.name.localeCompare(b.name));
    const sizes = new Map(entries.map(({ name }) => [name, entrySize(join(base, name))]));
    let count = entries.length;
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    for (const { name, made } of entries) {
      if (keep.has(name)) continue;
      const old = now - made > limits.maxAgeMs;
      if (!old && count <= limits.maxEntries && bytes <= limits.maxBytes) continue;
      try {
        rmSync(join(base, name), { recursive: true, force: true });
      } catch {
        continue;
      }
      removed.push(name);
      count -= 1;
      bytes -= sizes.get(name) ?? 0;
    }
  } finally {
    closeSync(folder);
  }
  return removed;
}

/** The time an entry name (`2026-12-02T15-20-01-123Z-3`) was made at, or undefined for another name. */
function entryTime(name: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-\d+$/.exec(name);
  if (!match) return undefined;
  const time = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`);
  return Number.isNaN(time) ? undefined : time;
}

/** The bytes an entry's files hold (a sparse file at its length), walked without following links. */
function entrySize(path: string): number {
  let total = 0;
  let visited = 0;
  const pending = [path];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const info = lstatQuiet(current);
    if (!info) continue;
    if (++visited > sizeWalkLimit) return Number.POSITIVE_INFINITY;
    if (info.isFile()) total += Number(info.size);
    if (!info.isDirectory()) continue;
    let names: string[] = [];
    try {
      names = readdirSync(current);
    } catch {}
    for (const name of names) pending.push(join(current, name));
  }
  return total;
}

/** Why git would run code from this metadata, or undefined when it holds only what git itself writes. */
export function judgeMetadata(
  path: string,
  root: string,
  trusted: readonly string[] = [],
): string | undefined {
  const info = lstatQuiet(path);
  if (!info) return undefined;
  if (!path.endsWith('/.git') || info.isDirectory()) return judgeGitDirectory(path, root, trusted, 0);
  // A `.git` file or link names the git directory elsewhere.
  const target = info.isSymbolicLink() ? realOrNothing(path) : gitFileTarget(path);
  if (!target) return `${displayPath(path, root)} names a git directory that does not exist`;
  if (lstatQuiet(target)?.isDirectory() !== true)
    return `${displayPath(path, root)} names ${target}, which is not a directory`;
  if (!isInside(target, root) && !trusted.some((directory) => isInside(target, directory)))
    return `${displayPath(path, root)} names the git directory ${target}, outside the working directory`;
  return judgeGitDirectory(target, root, trusted, 0);
}

/** The concern with a git directory's config, hooks, common directory and submodules, if any. */
function judgeGitDirectory(
  directory: string,
  root: string,
  trusted: readonly string[],
  depth: number,
): string | undefined {
  if (depth > 3) return `${displayPath(directory, root)} nests git directories too deeply to check`;
  for (const name of ['config', 'config.worktree']) {
    const path = join(directory, name);
    const info = lstatQuiet(path);
    if (!info) continue;
    if (!info.isFile()) return `${displayPath(path, root)} is not a plain file`;
    const read = readOwnFileSync(path, { maxBytes: 256 * 1024 });
    if (read.kind !== 'read') return `${displayPath(path, root)} could not be read`;
    const concern = configConcern(read.text);
    if (concern) return `${displayPath(path, root)} ${concern}`;
  }
  const commondir = join(directory, 'commondir');
  if (lstatQuiet(commondir)) {
    const read = readOwnFileSync(commondir, { maxBytes: 4096 });
    const common = read.kind === 'read' ? realOrNothing(resolve(directory, read.text.trim())) : '';
    if (!common) return `${displayPath(commondir, root)} names no existing directory`;
    const inTrusted = trusted.some((trustedDirectory) => isInside(common, trustedDirectory));
    if (!inTrusted) {
      if (!isInside(common, root))
        return `${displayPath(commondir, root)} names ${common}, outside the working directory`;
      const concern = judgeGitDirectory(common, root, trusted, depth + 1);
      if (concern) return concern;
    }
  }
  const hooks = join(directory, 'hooks');
  const hooksInfo = lstatQuiet(hooks);
  if (hooksInfo && !hooksInfo.isDirectory()) return `${displayPath(hooks, root)} is not a plain folder`;
  if (hooksInfo) {
    for (const entry of readdirSync(hooks, { withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.sample'))
        return `has the hook ${displayPath(join(hooks, entry.name), root)}, which git would run`;
    }
  }
  const modules = join(directory, 'modules');
  const modulesInfo = lstatQuiet(modules);
  if (modulesInfo && !modulesInfo.isDirectory()) return `${displayPath(modules, root)} is not a plain folder`;
  if (modulesInfo) {
    for (const module of gitDirectoriesBelow(modules, 0)) {
      const concern = judgeGitDirectory(module, root, trusted, depth + 1);
      if (concern) return concern;
    }
  }
  return undefined;
}

/** Git directories below a `modules` folder (submodule names may contain slashes). */
function gitDirectoriesBelow(directory: string, depth: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isSymbolicLink()) found.push(path);
    else if (!entry.isDirectory()) continue;
    else if (lstatQuiet(join(path, 'HEAD'))) found.push(path);
    else if (depth < 3) found.push(...gitDirectoriesBelow(path, depth + 1));
  }
  return found;
}

/** The git directory a `.git` file names, resolved, or undefined. */
function gitFileTarget(gitFile: string): string | undefined {
  const read = readOwnFileSync(gitFile, { maxBytes: 4096, cutOversize: true });
  if (read.kind !== 'read') return undefined;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(read.text);
  return match?.[1] ? realOrNothing(resolve(dirname(gitFile), match[1])) || undefined : undefined;
}

/**
 * The keys git writes into a repository it creates (`git init`, `git clone`, `git remote add`,
 * `git config user.*`): none of them names a program. `*` stands for any subsection.
 */
const keysGitWrites: ReadonlySet<string> = new Set([
  'core.repositoryformatversion',
  'core.filemode',
  'core.bare',
  'core.logallrefupdates',
  'core.ignorecase',
  'core.precomposeunicode',
  'core.symlinks',
  'extensions.objectformat',
  'extensions.refstorage',
  'remote.*.url',
  'remote.*.pushurl',
  'remote.*.fetch',
  'remote.*.tagopt',
  'remote.*.promisor',
  'remote.*.partialclonefilter',
  'branch.*.remote',
  'branch.*.merge',
  'submodule.*.url',
  'submodule.*.active',
  'user.name',
  'user.email',
]);

/**
 * Why a config file is more than git writes when creating a repository, or undefined. Anything the
 * strict reading below does not understand (continuation lines, odd quoting, old-style sections)
 * is a concern too: the check fails closed.
 */
export function configConcern(text: string): string | undefined {
  let section: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\]$/.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      if (name.includes('.')) return `uses the section spelling [${header[1]}], which is not checked`;
      section = header[2] === undefined ? name : `${name}.*`;
      continue;
    }
    const pair = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!pair || section === undefined) return `has a line that could not be read: ${line.slice(0, 60)}`;
    const key = `${section}.${(pair[1] as string).toLowerCase()}`;
    const value = unquote(pair[2] ?? 'true');
    if (value === undefined) return `sets ${key} with quoting that is not checked`;
    if (!keysGitWrites.has(key)) return `sets ${key}, which git does not write when it creates a repository`;
    if ((key.endsWith('.url') || key.endsWith('.pushurl')) && !isOrdinaryUrl(value))
      return `sets ${key} to ${value}, which is not an ordinary transport`;
  }
  return undefined;
}

/** A value without surrounding quotes, or undefined when it continues or quotes in ways not checked here. */
function unquote(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.endsWith('\\')) return undefined;
  if (/^"[^"\\]*"$/.test(trimmed)) return trimmed.slice(1, -1);
  if (/["\\]/.test(trimmed)) return undefined;
  return trimmed.replace(/\s+[#;].*$/, '');
}

/** A remote URL with an ordinary transport: no `helper::`, no option-like host. */
function isOrdinaryUrl(url: string): boolean {
  if (url.includes('::') || url.startsWith('-')) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme) return ['https', 'http', 'ssh', 'git', 'file'].includes(scheme) && !/^[a-z+]+:\/\/-/i.test(url);
  return !/^[^/]*:/.test(url) || /^[A-Za-z0-9._@-]+:/.test(url);
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

function displayPath(path: string, root: string): string {
  const relativePath = relative(root, path);
  return relativePath === '' ? root : relativePath.startsWith('..') ? path : relativePath;
}

/** The folder, inside the writable root, where neutralised metadata goes (read-only to commands). */
export const quarantineFolder = join('.efferent', 'quarantine');

/**
 * Moves the metadata out of git's way: a `.git` entry as a whole, a bare layout's `HEAD`, config,
 * hooks and common-directory pointer (without them git does not see a repository there). Every
 * folder on the way is opened without following links, so a racing command cannot steer the move.
 */
function neutralise(
  root: string,
  path: string,
  concern: string,
  label: string,
  report: RepositoryGuardReport,
): void {
  const shown = displayPath(path, root);
  const destination = join(quarantineFolder, label);
  const names = path.endsWith('/.git')
    ? ['.git']
    : ['HEAD', 'config', 'config.worktree', 'commondir', 'hooks'].filter((name) =>
        lstatQuiet(join(path, name)),
      );
  const source = path.endsWith('/.git') ? dirname(path) : path;
  try {
    moveBeneath(root, source, names, destination, path);
    const where = join(root, destination);
    for (const name of names) report.quarantined.set(join(source, name), join(where, name));
    report.notes.push(
      `The command left git repository metadata at ${shown} that git would run programs from (${concern}); efferent moved it to ${where} so that no later git command runs it. If the user wants that repository, they can check it and move it back, or the command can be run outside the sandbox (dangerouslyDisableSandbox, which asks the user).`,
    );
  } catch (error) {
    report.notes.push(
      `The command left git repository metadata at ${shown} that git would run programs from (${concern}), and efferent could not move it aside (${(error as Error).message}). Tell the user not to run git in ${dirname(path)} until it is removed.`,
    );
  }
}
