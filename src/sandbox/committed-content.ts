import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readOwnFileSync } from '../core/index.ts';

/**
 * Whether a file a command wrote holds what the user's own repository already held at that path.
 * `git checkout other`, `git restore`, `git stash pop` and `git rebase` write committed files, some
 * of them protected (a `packages/x/.npmrc`, a `docs/CLAUDE.md`); that content is the user's history,
 * not the command's. The commits a ref named *before* the command are noted (read from the files,
 * no process); afterwards the blob at the same path in those commits is compared with the file's
 * content. A command can write objects and refs during its run, but not change what the refs named
 * before it started.
 */

/** Bounds on what is noted before each command: refs read, and commits compared afterwards. */
export const committedContentLimits = { refs: 2_000, commits: 64, paths: 200 } as const;

/** The commits the repository at `root` named before a command (HEAD first), or undefined without one. */
export interface RepositorySnapshot {
  gitDirectory: string;
  commits: readonly string[];
  objectFormat: 'sha1' | 'sha256';
}

const objectId = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** What one reading of a repository's refs saw, and the identity of every file and folder it read. */
interface RefsReading {
  key: string;
  paths: readonly string[];
  commits: readonly string[];
  objectFormat: 'sha1' | 'sha256';
}

/**
 * The last reading per git directory: reused while every file and folder it read keeps its inode,
 * change time and size (git replaces refs by rename, which changes the folder; a command writing a
 * ref in place changes the file), so consecutive calls read the refs once, with a few `lstat`s.
 */
const readings = new Map<string, RefsReading>();

function identityOf(paths: readonly string[]): string {
  return paths
    .map((path) => {
      try {
        const info = lstatSync(path, { bigint: true });
        return `${info.ino}:${info.ctimeNs}:${info.size}`;
      } catch {
        return '-';
      }
    })
    .join(' ');
}

/** Notes the commits HEAD, the local branches and the tags name, when `root/.git` is a directory. */
export function snapshotRepository(root: string): RepositorySnapshot | undefined {
  const gitDirectory = join(root, '.git');
  try {
    if (!lstatSync(gitDirectory).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  let reading = readings.get(gitDirectory);
  if (!reading || identityOf(reading.paths) !== reading.key) {
    reading = readRefs(gitDirectory);
    readings.set(gitDirectory, reading);
  }
  const made = commandCommits.get(gitDirectory);
  return {
    gitDirectory,
    commits: reading.commits.filter((commit) => !made?.has(commit)),
    objectFormat: reading.objectFormat,
  };
}

function readRefs(gitDirectory: string): RefsReading {
  const commits = new Set<string>();
  // Each identity is taken before the read, so a change during the reading shows at the next check.
  const paths: string[] = [];
  const parts: string[] = [];
  const note = (path: string) => {
    paths.push(path);
    parts.push(identityOf([path]));
  };
  for (const name of ['HEAD', 'packed-refs', 'config', 'refs']) note(join(gitDirectory, name));
  const head = readSmall(join(gitDirectory, 'HEAD'));
  const symbolic = /^ref: (refs\/[^\s]+)\s*$/.exec(head)?.[1];
  if (symbolic) {
    note(join(gitDirectory, symbolic));
    const value = readSmall(join(gitDirectory, symbolic)).trim();
    if (objectId.test(value)) commits.add(value);
  } else if (objectId.test(head.trim())) commits.add(head.trim());
  let budget: number = committedContentLimits.refs;
  const walk = (directory: string, depth: number) => {
    if (depth > 6 || budget <= 0) return;
    note(directory);
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (budget-- <= 0) return;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path, depth + 1);
      else if (entry.isFile()) {
        note(path);
        const value = readSmall(path).trim();
        if (objectId.test(value)) commits.add(value);
      }
    }
  };
  // Local branches and tags: what the user made or chose. Remote branches hold what a fetch brought.
  for (const kind of ['heads', 'tags']) walk(join(gitDirectory, 'refs', kind), 0);
  const packed = readOwnFileSync(join(gitDirectory, 'packed-refs'), {
    maxBytes: 512 * 1024,
    cutOversize: true,
  });
  if (packed.kind === 'read') {
    for (const line of packed.text.split('\n')) {
      if (budget-- <= 0) break;
      const [value = '', name = ''] = line.split(' ');
      if (objectId.test(value) && /^refs\/(?:heads|tags)\//.test(name)) commits.add(value);
    }
  }
  const config = readSmall(join(gitDirectory, 'config'));
  const objectFormat = /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 'sha256' : 'sha1';
  return { key: parts.join(' '), paths, commits: [...commits], objectFormat };
}

/**
 * Commits that refs first named after a sandboxed command (it committed, fetched, reset or rebased),
 * per git directory: they never vouch for content in a later call, or a command could commit what it
 * wrote and check it out again once the first copy was moved aside.
 */
const commandCommits = new Map<string, Set<string>>();

/** Notes the commits the refs name after a command that they did not name before it. */
export function noteCommandCommits(root: string, before: RepositorySnapshot | undefined): void {
  const after = snapshotRepository(root);
  if (!after) return;
  const earlier = new Set(before?.commits ?? []);
  let made = commandCommits.get(after.gitDirectory);
  for (const commit of after.commits) {
    if (earlier.has(commit)) continue;
    made ??= new Set();
    made.add(commit);
  }
  if (made) commandCommits.set(after.gitDirectory, made);
}

/** Forgets what commands committed and the cached readings (tests). */
export function resetCommandCommits(): void {
  commandCommits.clear();
  readings.clear();
}

function readSmall(path: string): string {
  const read = readOwnFileSync(path, { maxBytes: 64 * 1024 });
  return read.kind === 'read' ? read.text : '';
}

/** The git blob id of a file's bytes, or undefined when it is not a regular file of at most 4 MiB. */
function blobId(path: string, format: 'sha1' | 'sha256'): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > 4 * 1024 * 1024) return undefined;
    const bytes = Buffer.alloc(stats.size);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return createHash(format).update(`blob ${length}\0`).update(bytes.subarray(0, length)).digest('hex');
  } finally {
    closeSync(fd);
  }
}

/**
 * The files among `paths` (regular files in the work tree of `snapshot`'s repository) whose content
 * is the blob at the same path in one of the commits noted before the command. One `git cat-file`
 * process, with fsmonitor off; none when there is nothing to compare.
 */
export function committedFiles(
  root: string,
  snapshot: RepositorySnapshot | undefined,
  paths: readonly string[],
): Set<string> {
  const found = new Set<string>();
  if (!snapshot || snapshot.commits.length === 0) return found;
  const wanted = new Map<string, string>();
  for (const path of paths.slice(0, committedContentLimits.paths)) {
    const inside = relative(root, path);
    if (inside === '' || inside.startsWith('..') || /[\n\r]/.test(inside)) continue;
    const id = blobId(path, snapshot.objectFormat);
    if (id !== undefined) wanted.set(path, id);
  }
  if (wanted.size === 0) return found;
  const commits = snapshot.commits.slice(0, committedContentLimits.commits);
  const lines: Array<[string, string]> = [];
  for (const path of wanted.keys())
    for (const commit of commits) lines.push([path, `${commit}:${relative(root, path)}`]);
  const result = spawnSync(
    'git',
    [
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.hooksPath=/dev/null',
      `--git-dir=${snapshot.gitDirectory}`,
      'cat-file',
      '--batch-check=%(objectname) %(objecttype)',
    ],
    {
      input: `${lines.map(([, spec]) => spec).join('\n')}\n`,
      encoding: 'utf8',
      timeout: 10_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' },
    },
  );
  if (result.status !== 0 || typeof result.stdout !== 'string') return found;
  const answers = result.stdout.split('\n');
  lines.forEach(([path], index) => {
    const [id, type] = (answers[index] ?? '').split(' ');
    if (type === 'blob' && id === wanted.get(path)) found.add(path);
  });
  return found;
}
