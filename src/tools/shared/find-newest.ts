import { execFile, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { type FileHandle, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { isUtf8 } from 'node:buffer';
import { join, sep } from 'node:path';
import { isExecutableFile } from '../../core/index.ts';
import { mtimeOf } from './newest-first.ts';
import type { StampedPaths } from './stat-pool.ts';

/**
 * GNU find as a Glob source: it walks and stats in one C process (`fstatat` on the directory it is
 * reading, the entry's type from `readdir` for `-type f`), so a listing with every match's mtime costs
 * less than a ripgrep walk followed by a separate stat pass. Several finds run side by side, each over
 * a share of the root's entries, and efferent keeps only the records that can be among the newest.
 */

/** The environment every find runs with: fixed, so no `POSIXLY_CORRECT` or locale changes its output. */
const findEnv = { LC_ALL: 'C' };

/** Where the system's find is looked for; never PATH, so nothing a command put in the workspace runs. */
const findLocations = ['/usr/bin/find', '/bin/find'];

let located: Promise<string | undefined> | undefined;

function run(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { env: findEnv, timeout: 5000 }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
}

/**
 * `path` when it is a GNU find Glob can use: `--version` names GNU findutils, and `-printf '%T@'` on
 * `/` gives the nanoseconds Node's `stat` gives (so times and ties are the same as the other
 * sources'). BSD and macOS finds have no `-printf` and fail the check.
 */
export async function checkGnuFind(path: string): Promise<string | undefined> {
  const version = await run(path, ['--version']);
  if (!version || !/GNU findutils/.test(version)) return undefined;
  const printed = await run(path, ['/', '-maxdepth', '0', '-printf', '%T@']);
  const stamp = printed && findTime(Buffer.from(`${printed}\t`), 0);
  if (!stamp || stamp.end !== printed.length) return undefined;
  const expected = statSync('/', { bigint: true }).mtimeNs;
  return BigInt(stamp.seconds) * 1_000_000_000n + BigInt(stamp.nanoseconds) === expected ? path : undefined;
}

/**
 * The GNU find Glob may use, or undefined: none in /usr/bin or /bin, not GNU, or
 * `EFFERENT_GLOB_FIND=0` in `env`.
 */
export function globFind(env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  const setting = env['EFFERENT_GLOB_FIND']?.trim().toLowerCase();
  if (setting === '0' || setting === 'false' || setting === 'off') return Promise.resolve(undefined);
  located ??= (async () => {
    const path = findLocations.find(isExecutableFile);
    return path ? await checkGnuFind(path) : undefined;
  })().catch(() => undefined);
  return located;
}

/**
 * Parses `SECONDS.FRACTION` (as `%T@` prints it) at `start`, up to the tab that must follow: whole
 * seconds and nanoseconds (the first nine fraction digits), and where the tab is. Undefined for
 * anything else (a time before 1970, fewer than nine digits), which the caller then stats itself.
 */
function findTime(
  bytes: Uint8Array,
  start: number,
): { seconds: number; nanoseconds: number; end: number } | undefined {
  let position = start;
  let seconds = 0;
  let byte = bytes[position] as number;
  if (byte < 48 || byte > 57) return undefined;
  while (byte >= 48 && byte <= 57) {
    seconds = seconds * 10 + (byte - 48);
    byte = bytes[++position] as number;
  }
  if (byte !== 46) return undefined;
  byte = bytes[++position] as number;
  let nanoseconds = 0;
  let digits = 0;
  while (byte >= 48 && byte <= 57) {
    if (digits < 9) nanoseconds = nanoseconds * 10 + (byte - 48);
    digits++;
    byte = bytes[++position] as number;
  }
  if (digits < 9 || byte !== 9) return undefined;
  return { seconds, nanoseconds, end: position };
}

/** Options for {@link newestThroughFind}. */
export interface FindNewestOptions {
  /** GNU find's absolute path ({@link globFind}). */
  find: string;
  /** The directory walked; paths come back relative to it. */
  root: string;
  /** A directory below the root (relative, `/`-separated) to walk instead of the whole root. */
  under?: string;
  /** A `-name` pattern (fnmatch, no escapes) every listed file must match, when there is one. */
  name?: string;
  /** Names skipped at any depth, files and directories alike (as ripgrep's `--glob=!NAME`). */
  excluded: readonly string[];
  /** How many of the newest are wanted. */
  limit: number;
  /** When given, only paths it accepts are listed; it sees every file find lists (decoded, relative to the root). */
  accept?: (path: string) => boolean;
  /** Processes to run side by side (default: the cores, at most four). */
  processes?: number;
  signal?: AbortSignal;
}

/** What the finds listed. */
export interface FindNewest {
  /** A superset of the newest `limit` listed paths, with Node's `mtimeMs`. */
  stamped: StampedPaths;
  /** Files find listed (before `accept`). */
  listed: number;
}

/** Characters fnmatch or ripgrep's globs read as patterns: names holding one are not passed to find. */
const patternCharacters = /[*?[\]{}\\!]/;

/** Directories below the root opened to find starting points, at most. */
const maxExpandDepth = 2;

/**
 * The root's entries split into `processes` groups of starting points (`./NAME`, so no name reads as
 * an option), every file below the root under exactly one of them: directories are opened one level
 * deeper (up to two) while there are fewer than four per process, then weighed by their entries so
 * the groups get similar work and one big directory is split (see `weighStartingPoints`); files
 * found on the way are starting points themselves. Names in `excluded` are left out at every level,
 * as find's `-prune` leaves them out below. A directory holding a name that is not UTF-8 (arguments
 * are UTF-8 strings) is a starting point itself, not opened. Undefined when find can't be given the
 * starting points faithfully: such a name in the root, a directory that can't be read.
 */
export async function findStartingPoints(
  root: string,
  excluded: readonly string[],
  processes: number,
  under?: string,
): Promise<string[][] | undefined> {
  const skip = new Set(excluded);
  const files: string[] = [];
  let frontier = [under ? `./${under}` : '.'];
  let directories: string[] = [];
  for (let depth = 0; ; depth++) {
    const read = await Promise.all(frontier.map((directory) => listDirectory(root, directory, skip)));
    directories = [];
    for (const [index, listing] of read.entries()) {
      if (!listing) return undefined;
      if (listing === 'unnamable') {
        if (depth === 0) return undefined;
        directories.push(frontier[index] as string);
        continue;
      }
      directories.push(...listing.directories);
      files.push(...listing.files);
    }
    if (directories.length >= 4 * processes || depth >= maxExpandDepth || directories.length === 0) break;
    frontier = directories;
  }
  const starts = await weighStartingPoints(root, directories, files, skip, processes);
  if (!starts) return undefined;
  return spreadOver(starts, processes);
}

/** A directory's entries as starting points, excluded names left out; `unnamable` when one is not UTF-8. */
async function listDirectory(
  root: string,
  directory: string,
  skip: ReadonlySet<string>,
): Promise<{ directories: string[]; files: string[] } | 'unnamable' | undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory === '.' ? root : root + sep + directory.slice(2), {
      withFileTypes: true,
    });
  } catch {
    return undefined;
  }
  // A name that is not UTF-8 can't be passed as an argument: its directory is, unopened.
  if (entries.some((entry) => entry.name.includes('\uFFFD'))) return 'unnamable';
  const listing = { directories: [] as string[], files: [] as string[] };
  for (const entry of entries) {
    if (skip.has(entry.name)) continue;
    const path = `${directory}/${entry.name}`;
    if (entry.isDirectory()) listing.directories.push(path);
    else listing.files.push(path);
  }
  return listing;
}

/** Directories weighed by their entries, at most. */
const maxWeighed = 256;

/**
 * Starting points with a guess of their work: a directory weighs one more than its number of entries,
 * a file 1.
 * A directory heavier than half a process's share is replaced by its entries (1 each: their own
 * weight is not read), so one big directory among small ones is split rather than given to one
 * process whole.
 */
async function weighStartingPoints(
  root: string,
  directories: readonly string[],
  files: readonly string[],
  skip: ReadonlySet<string>,
  processes: number,
): Promise<Array<{ path: string; weight: number }> | undefined> {
  const starts = files.map((path) => ({ path, weight: 1 }));
  if (processes < 2 || directories.length > maxWeighed) {
    return [...directories.map((path) => ({ path, weight: 1 })), ...starts];
  }
  const listings = await Promise.all(directories.map((directory) => listDirectory(root, directory, skip)));
  const weights = listings.map((listing) =>
    listing && listing !== 'unnamable' ? 1 + listing.directories.length + listing.files.length : 1,
  );
  const total = files.length + weights.reduce((sum, weight) => sum + weight, 0);
  for (const [index, directory] of directories.entries()) {
    const listing = listings[index];
    const weight = weights[index] as number;
    if (listing === undefined) return undefined;
    if (listing !== 'unnamable' && weight > total / (2 * processes)) {
      for (const path of [...listing.directories, ...listing.files]) starts.push({ path, weight: 1 });
    } else {
      starts.push({ path: directory, weight });
    }
  }
  return starts;
}

/** Groups of starting points, heaviest first, each to the lightest group so far. */
function spreadOver(starts: Array<{ path: string; weight: number }>, processes: number): string[][] {
  if (starts.length === 0) return [];
  const count = Math.max(1, Math.min(processes, starts.length));
  const groups: string[][] = Array.from({ length: count }, () => []);
  const loads = new Array<number>(count).fill(0);
  for (const start of [...starts].sort((a, b) => b.weight - a.weight)) {
    let lightest = 0;
    for (let index = 1; index < count; index++)
      if ((loads[index] as number) < (loads[lightest] as number)) lightest = index;
    groups[lightest]?.push(start.path);
    loads[lightest] = (loads[lightest] as number) + start.weight;
  }
  return groups;
}

/**
 * find's arguments after the starting points: prune the excluded names, write regular files' times and
 * paths to `output`.
 */
function findExpression(options: FindNewestOptions, output: string): string[] {
  // A file that vanishes between find's reading its directory and its stat is left out silently, as
  // ripgrep leaves it out (or lists it and its stat finds nothing).
  const expression: string[] = ['-ignore_readdir_race'];
  if (options.excluded.length > 0) {
    expression.push('(');
    options.excluded.forEach((name, index) => {
      if (index > 0) expression.push('-o');
      expression.push('-name', name);
    });
    expression.push(')', '-prune', '-o');
  }
  expression.push('-type', 'f');
  if (options.name !== undefined) expression.push('-name', options.name);
  expression.push('-fprintf', output, '%T@\\t%p\\0');
  return expression;
}

/**
 * The newest listed records, kept as they stream in: a min-heap of the newest `limit` times gives the
 * floor below which nothing can be returned; records at or above it are held as undecoded bytes and
 * dropped when the floor passes them. Ties at the floor are all held, since their order is by path.
 */
class NewestRecords {
  private readonly heap: Float64Array;
  private size = 0;
  private floor = Number.NEGATIVE_INFINITY;
  private times: number[] = [];
  private paths: Buffer[] = [];
  /** Records whose time efferent finds itself (odd bytes, odd times); never dropped early. */
  private readonly unstamped: Buffer[] = [];
  listed = 0;

  constructor(private readonly limit: number) {
    this.heap = new Float64Array(Math.max(1, limit));
  }

  add(time: number, path: Buffer): void {
    if (time < this.floor) return;
    this.times.push(time);
    this.paths.push(path);
    this.raiseFloor(time);
    if (this.times.length > 4 * this.limit + 1024) this.compact();
  }

  addUnstamped(path: Buffer): void {
    this.unstamped.push(path);
  }

  /** Pushes `time` into the heap of the newest `limit` times; the floor is its smallest once full. */
  private raiseFloor(time: number): void {
    const heap = this.heap;
    if (this.size < this.limit) {
      let index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if ((heap[parent] as number) <= time) break;
        heap[index] = heap[parent] as number;
        index = parent;
      }
      heap[index] = time;
      if (this.size === this.limit) this.floor = heap[0] as number;
      return;
    }
    if (time <= (heap[0] as number)) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= time) break;
      heap[index] = heap[child] as number;
      index = child;
    }
    heap[index] = time;
    this.floor = heap[0] as number;
  }

  private compact(): void {
    const times: number[] = [];
    const paths: Buffer[] = [];
    for (let index = 0; index < this.times.length; index++) {
      const time = this.times[index] as number;
      if (time < this.floor) continue;
      times.push(time);
      paths.push(this.paths[index] as Buffer);
    }
    this.times = times;
    this.paths = paths;
  }

  /** The held records, decoded, with `mtimeMs` times; `prefix` is the root with its separator. */
  stamped(prefix: string): StampedPaths {
    this.compact();
    const count = this.times.length + this.unstamped.length;
    const paths = new Array<string>(count);
    const times = new Float64Array(count);
    for (let index = 0; index < this.times.length; index++) {
      paths[index] = (this.paths[index] as Buffer).toString('utf8');
      times[index] = this.times[index] as number;
    }
    for (let index = 0; index < this.unstamped.length; index++) {
      // Decoded (with replacement characters, when not UTF-8) and stat'ed as decoded, as the other
      // sources do with such a name.
      const path = (this.unstamped[index] as Buffer).toString('utf8');
      paths[this.times.length + index] = path;
      times[this.times.length + index] = mtimeOf(prefix + path);
    }
    return { paths, times };
  }
}

/**
 * Reads one find's records (`SECONDS.FRACTION\tPATH\0`) as they arrive, without a string per record:
 * the time is parsed from the bytes, and only records that can be among the newest are kept (as
 * bytes). A path that is not UTF-8 or a time that does not parse is kept aside for a stat of its own.
 */
class RecordReader {
  private carry: Buffer | undefined;

  constructor(
    private readonly records: NewestRecords,
    private readonly accept: ((path: string) => boolean) | undefined,
  ) {}

  data(chunk: Buffer): void {
    const bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const cut = bytes.lastIndexOf(0) + 1;
    this.carry = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : undefined;
    if (cut > 0) this.readRecords(bytes, cut);
  }

  private readRecords(bytes: Buffer, cut: number): void {
    // A NUL or a tab never occurs inside a UTF-8 sequence, so when the whole piece is UTF-8, so is
    // every path in it.
    const allUtf8 = isUtf8(bytes.subarray(0, cut));
    const records = this.records;
    const accept = this.accept;
    for (let start = 0; start < cut; ) {
      const end = bytes.indexOf(0, start);
      const stamp = findTime(bytes, start);
      const tab = stamp ? stamp.end : bytes.indexOf(9, start);
      // Paths start with the `./` of their starting point.
      const path = bytes.subarray(tab + 3, end);
      start = end + 1;
      if (tab === -1 || tab > end) continue;
      records.listed++;
      // Every record, so that a caller counting what it refuses (deny rules) sees them all.
      if (accept && !accept(path.toString('utf8'))) continue;
      if (!stamp || (!allUtf8 && !isUtf8(path))) {
        records.addUnstamped(path);
        continue;
      }
      // Node's own formula for `mtimeMs`, so the times equal `statSync`'s.
      records.add(stamp.seconds * 1e3 + stamp.nanoseconds / 1e6, path);
    }
  }
}

/** How a find ended. */
interface FindExit {
  code: number | null;
  stderr: string;
}

const maxStderr = 8192;

/** True when every complaint is about a file that vanished while find was walking. */
function onlyVanishedFiles(stderr: string): boolean {
  return stderr
    .split('\n')
    .filter(Boolean)
    .every((line) => /No such file or directory$/.test(line));
}

/**
 * Lists the regular files below `root` (and not under an excluded name) with GNU find, several
 * processes side by side, and returns those that can be among the newest `limit`, with times equal to
 * Node's `mtimeMs`; the caller orders them. Resolves to undefined when find can't give the same
 * answer as the other sources here (see {@link findStartingPoints}), or when it failed for any reason
 * other than files vanishing mid-walk, so the caller lists another way. Rejects when the signal
 * aborts, after killing every find.
 */
export async function newestThroughFind(options: FindNewestOptions): Promise<FindNewest | undefined> {
  options.signal?.throwIfAborted();
  if (options.excluded.some((name) => patternCharacters.test(name) || name.includes('/'))) return undefined;
  const processes = options.processes ?? Math.max(1, Math.min(4, availableParallelism()));
  const groups = await findStartingPoints(options.root, options.excluded, processes, options.under);
  if (!groups) return undefined;
  options.signal?.throwIfAborted();
  const records = new NewestRecords(options.limit);
  const prefix = options.root.endsWith(sep) ? options.root : options.root + sep;
  if (groups.length === 0) return { stamped: { paths: [], times: new Float64Array() }, listed: 0 };
  let outputs: string;
  try {
    outputs = await mkdtemp(join(tmpdir(), 'efferent-find-'));
  } catch {
    return undefined;
  }
  try {
    const files = groups.map((_, index) => join(outputs, String(index)));
    const exit = await runFinds(options, groups, files);
    if (!exit) return undefined;
    options.signal?.throwIfAborted();
    if (exit.code !== 0 && !(exit.code === 1 && onlyVanishedFiles(exit.stderr))) return undefined;
    for (const file of files) {
      if (!(await readRecords(file, new RecordReader(records, options.accept), options.signal)))
        return undefined;
    }
  } finally {
    await rm(outputs, { recursive: true, force: true }).catch(() => {});
  }
  return { stamped: records.stamped(prefix), listed: records.listed };
}

/** Quotes an argument for the shell (names may hold any byte but NUL). */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** The system's shell that starts the finds; never one from PATH. */
const shell = '/bin/sh';

/** A single argument longer than this does not fit in `execve` (Linux: 32 pages). */
const maxScriptBytes = 120 * 1024;

/**
 * Starts one find per group through one shell, each writing its records to a file of its own, so
 * efferent's process forks once, as it does for ripgrep (a fork of a large process costs
 * milliseconds, a fork of the shell far less), and reads each file in a few large reads once its find
 * is done, instead of find's four-kilobyte writes to a pipe one by one. The shell's exit code is 0
 * when every find ended with 0, 1 when the worst was 1 (find's "some files could not be read"), 2
 * otherwise (a find killed or failing to start). The shell and the finds form a process group of their
 * own, killed whole on abort. Undefined when the shell could not run them.
 */
function runFinds(
  options: FindNewestOptions,
  groups: readonly string[][],
  outputs: readonly string[],
): Promise<FindExit | undefined> {
  const script = [
    ...groups.map((starts, index) => {
      const expression = findExpression(options, outputs[index] as string);
      return `${shellQuote(options.find)} -P ${starts.map(shellQuote).join(' ')} ${expression.map(shellQuote).join(' ')} & p${index}=$!`;
    }),
    'r=0',
    `for p in ${groups.map((_, index) => `$p${index}`).join(' ')}; do wait "$p"; s=$?; if [ "$s" -gt 1 ]; then r=2; elif [ "$s" = 1 ] && [ "$r" = 0 ]; then r=1; fi; done`,
    'exit "$r"',
  ].join('\n');
  if (Buffer.byteLength(script) > maxScriptBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', script], {
      cwd: options.root,
      env: findEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    options.signal?.addEventListener('abort', killGroup, { once: true });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < maxStderr) stderr += chunk.slice(0, maxStderr - stderr.length);
    });
    child.on('error', () => {
      options.signal?.removeEventListener('abort', killGroup);
      resolve(undefined);
    });
    child.on('close', (code, signal) => {
      options.signal?.removeEventListener('abort', killGroup);
      if (options.signal?.aborted) reject(options.signal.reason);
      else resolve(signal === null ? { code, stderr } : undefined);
    });
  });
}

/** Bytes read from a find's output file at a time (a fresh buffer each: kept records point into it). */
const readBytes = 1 << 20;

/** Hands a find's output file to `reader` in large pieces; false when it can't be read. */
async function readRecords(path: string, reader: RecordReader, signal?: AbortSignal): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(readBytes);
      const { bytesRead } = await handle.read(buffer, 0, readBytes, null);
      if (bytesRead === 0) return true;
      reader.data(buffer.subarray(0, bytesRead));
      signal?.throwIfAborted();
    }
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  } finally {
    await handle.close();
  }
}
