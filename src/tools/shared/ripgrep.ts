import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { access, constants } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { ToolUseContext } from '../../core/index.ts';
import { canonicalPath, workingDirectories } from './paths.ts';

/** Where ripgrep comes from: the system's `rg`, the one bundled through npm, or the pure-JS fallback. */
export type RipgrepSource = 'system' | 'bundled' | 'js';

/** A usable ripgrep binary, or the instruction to use the JS fallback. */
export type RipgrepLocation =
  | { source: 'system' | 'bundled'; path: string; version: string }
  | { source: 'js' };

/** Oldest ripgrep whose flags (`--max-columns-preview`, `--multiline-dotall`) efferent relies on. */
export const minimumRipgrepMajor = 13;

type RipgrepBinary = Extract<RipgrepLocation, { path: string }>;

const located = new Map<string, Promise<RipgrepLocation>>();

function isExecutable(path: string): Promise<boolean> {
  return new Promise((resolve) => access(path, constants.X_OK, (error) => resolve(!error)));
}

function versionOf(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: 5000 }, (error, stdout) => {
      const match = /ripgrep (\d+)\.(\d+)\.(\d+)/.exec(stdout);
      resolve(error || !match ? undefined : `${match[1]}.${match[2]}.${match[3]}`);
    });
  });
}

async function systemRipgrep(
  pathVariable: string | undefined,
  untrustedDirectories: readonly string[],
): Promise<RipgrepBinary | undefined> {
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const directory of (pathVariable ?? '').split(delimiter)) {
    // A relative entry or one inside the workspace could hold an `rg` a command or an edit planted,
    // which Grep (read-only, unsandboxed) would then run.
    if (!directory || !isAbsolute(directory)) continue;
    if (untrustedDirectories.some((untrusted) => isInside(directory, untrusted))) continue;
    const candidate = join(directory, name);
    if (!(await isExecutable(candidate))) continue;
    const version = await versionOf(candidate);
    if (version && Number(version.split('.')[0]) >= minimumRipgrepMajor) {
      return { source: 'system', path: candidate, version };
    }
  }
  return undefined;
}

async function bundledRipgrep(): Promise<RipgrepBinary | undefined> {
  try {
    // The platform package is optional; its absence makes the import throw.
    const { rgPath } = await import('@vscode/ripgrep');
    const version = await versionOf(rgPath);
    return version ? { source: 'bundled', path: rgPath, version } : undefined;
  } catch {
    return undefined;
  }
}

function compareVersions(left: string, right: string): number {
  const a = left.split('.').map(Number);
  const b = right.split('.').map(Number);
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The source `EFFERENT_RG` asks for (`system`, `bundled`, `js`), if any. */
export function ripgrepPreference(
  env: Readonly<Record<string, string | undefined>>,
): RipgrepSource | undefined {
  const value = env['EFFERENT_RG']?.trim().toLowerCase();
  return value === 'system' || value === 'bundled' || value === 'js' ? value : undefined;
}

/**
 * Finds ripgrep: the newer of the system's `rg` (version 13 or newer) on PATH and the npm-bundled one
 * (the system's on a tie), else the JS fallback. `preference` forces one source; a forced binary that is missing falls through to JS.
 * PATH entries that are relative or inside `untrustedDirectories` (the workspace) are skipped.
 * Results are remembered per PATH and preference, since probing spawns processes.
 */
export function locateRipgrep(
  env: Readonly<Record<string, string | undefined>>,
  preference: RipgrepSource | undefined = ripgrepPreference(env),
  untrustedDirectories: readonly string[] = [],
): Promise<RipgrepLocation> {
  const key = `${preference ?? 'auto'}\0${env['PATH'] ?? ''}\0${untrustedDirectories.join('\0')}`;
  let pending = located.get(key);
  if (!pending) {
    pending = (async (): Promise<RipgrepLocation> => {
      if (preference === 'js') return { source: 'js' };
      if (preference === 'bundled') return (await bundledRipgrep()) ?? { source: 'js' };
      const system = await systemRipgrep(env['PATH'], untrustedDirectories);
      if (preference === 'system') return system ?? { source: 'js' };
      // By default the newer of the two, the system's on a tie: ripgrep 14 walks and sorts much faster
      // than 13, which some distributions still ship.
      const bundled = await bundledRipgrep();
      if (system && bundled) return compareVersions(bundled.version, system.version) > 0 ? bundled : system;
      return system ?? bundled ?? { source: 'js' };
    })();
    located.set(key, pending);
  }
  return pending;
}

/** {@link locateRipgrep} for a tool call: the run's PATH, never an `rg` inside the working directories. */
export function locateRipgrepForRun(context: Pick<ToolUseContext, 'run'>): Promise<RipgrepLocation> {
  const directories = workingDirectories(context).flatMap((directory) => [
    directory,
    canonicalPath(directory),
  ]);
  return locateRipgrep(context.run.env, undefined, directories);
}

/** How a ripgrep run ended. */
export interface RipgrepExit {
  /** 0 = matches, 1 = none, 2 = error (possibly with partial results). Null when we stopped it. */
  exitCode: number | null;
  /** The first few KB of stderr. */
  stderr: string;
  /** True when `onLine` asked to stop and the process was killed. */
  stoppedEarly: boolean;
}

/** Options for {@link runRipgrep}. */
export interface RunRipgrepOptions {
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

const maxStderr = 8192;

/**
 * The environment without `RIPGREP_CONFIG_PATH`: a config file can add any flag, `--pre` (run a
 * program on every file) included, and would make results depend on the user's settings.
 */
function withoutRipgrepConfig(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const { RIPGREP_CONFIG_PATH: _ignored, ...rest } = env;
  return rest;
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** What a ripgrep run does with its stdout: `data` returns false to stop; `end` once it is closed. */
interface StdoutReader {
  data(chunk: Buffer): boolean;
  end(): void;
}

/**
 * Runs ripgrep, handing its stdout to `reader`; a `false` from it stops reading and kills the process,
 * so a search never holds more output than its caller keeps. Stdin is closed (ripgrep would otherwise
 * search it). Rejects only when the process cannot start or the signal aborts.
 */
function runRipgrepProcess(
  rgPath: string,
  args: readonly string[],
  options: RunRipgrepOptions,
  reader: StdoutReader,
): Promise<RipgrepExit> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child: ChildProcess = spawn(rgPath, args, {
      cwd: options.cwd,
      env: withoutRipgrepConfig(options.env ?? process.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stopped = false;
    const onAbort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.stdout?.destroy();
      child.kill('SIGKILL');
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!stopped && !reader.data(chunk)) stop();
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < maxStderr) stderr += chunk.slice(0, maxStderr - stderr.length);
    });
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      if (!stopped) reader.end();
      resolve({ exitCode: stopped ? null : code, stderr, stoppedEarly: stopped });
    });
  });
}

/**
 * Runs ripgrep and hands each stdout line to `onLine` as it arrives; returning `false` stops reading
 * and kills the process, so a search never holds more output than its caller keeps. Stdin is closed
 * (ripgrep would otherwise search it). Rejects only when the process cannot start or the signal aborts.
 */
export function runRipgrep(
  rgPath: string,
  args: readonly string[],
  options: RunRipgrepOptions,
  onLine: (line: string) => boolean | undefined,
): Promise<RipgrepExit> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  return runRipgrepProcess(rgPath, args, options, {
    data(chunk) {
      const text = carry + decoder.write(chunk);
      let start = 0;
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        const line = text.slice(start, end);
        start = end + 1;
        if (onLine(line) === false) return false;
      }
      carry = text.slice(start);
      return true;
    },
    end() {
      carry += decoder.end();
      if (carry !== '') onLine(carry);
    },
  });
}

/**
 * Like {@link runRipgrep}, but hands stdout over undecoded, in pieces of whole lines (each piece's
 * bytes end with `separator`, `\n` by default or NUL for ripgrep's `--null`; a last line without
 * one is given one): for callers that pass the output on in bulk rather than looking at each line.
 */
export function runRipgrepLines(
  rgPath: string,
  args: readonly string[],
  options: RunRipgrepOptions,
  onLines: (lines: Buffer) => void,
  separator: '\n' | '\0' = '\n',
): Promise<RipgrepExit> {
  const end = separator.charCodeAt(0);
  let carry: Buffer | undefined;
  return runRipgrepProcess(rgPath, args, options, {
    data(chunk) {
      const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
      const cut = bytes.lastIndexOf(end) + 1;
      carry = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : undefined;
      if (cut > 0) onLines(bytes.subarray(0, cut));
      return true;
    },
    end() {
      if (carry) onLines(Buffer.concat([carry, Buffer.from(separator)]));
    },
  });
}

/** The part of ripgrep's stderr worth showing the model (the regex error, without usage noise). */
export function ripgrepErrorSummary(stderr: string): string {
  return stderr.trim().split('\n').slice(0, 12).join('\n');
}

/** VCS metadata directories no search should descend into. */
export const vcsDirectories = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'] as const;
