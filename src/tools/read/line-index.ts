import type { ReadFileState } from '../../core/index.ts';

/**
 * What one scan of a large file learned, so a later read deep into the same version of the file seeks
 * instead of scanning from the start again: the number of newlines before each chunk boundary.
 */
export interface LineIndex {
  /** Identity of the file version: any change invalidates the index. */
  version: string;
  /** Bytes per chunk; `newlinesBefore[k]` counts the newlines before byte `k * chunkBytes`. */
  chunkBytes: number;
  newlinesBefore: number[];
  /** Total line count, once a scan reached the end. */
  totalLines?: number;
}

// Keyed by the run's read state, so an index lives and dies with the run (no process-wide cache).
const indexesByRun = new WeakMap<ReadFileState, Map<string, LineIndex>>();
const maxIndexedFiles = 16;

/** A version key from stat fields; equal keys mean the same bytes for practical purposes. */
export function fileVersion(stats: { dev: number; ino: number; size: number; mtimeMs: number }): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** The line index for this file version, creating an empty one if needed. */
export function lineIndexFor(
  state: ReadFileState,
  path: string,
  version: string,
  chunkBytes: number,
): LineIndex {
  let indexes = indexesByRun.get(state);
  if (!indexes) {
    indexes = new Map();
    indexesByRun.set(state, indexes);
  }
  const existing = indexes.get(path);
  if (existing && existing.version === version && existing.chunkBytes === chunkBytes) return existing;
  if (indexes.size >= maxIndexedFiles && !indexes.has(path)) {
    const oldest = indexes.keys().next().value;
    if (oldest !== undefined) indexes.delete(oldest);
  }
  const fresh: LineIndex = { version, chunkBytes, newlinesBefore: [0] };
  indexes.set(path, fresh);
  return fresh;
}

/**
 * The furthest known chunk boundary that lies inside a line before `line` (0-based), so a scan from
 * there reaches the start of `line` without missing it. Byte 0 is always a valid start.
 */
export function nearestStart(index: LineIndex, line: number): { byte: number; newlines: number } {
  const known = index.newlinesBefore;
  let low = 0;
  let high = known.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((known[middle] ?? 0) < line) low = middle;
    else high = middle - 1;
  }
  return { byte: low * index.chunkBytes, newlines: known[low] ?? 0 };
}

/** Remembers the newline count before chunk `chunk` (only extends the index in order). */
export function recordChunkStart(index: LineIndex, chunk: number, newlines: number): void {
  if (chunk === index.newlinesBefore.length) index.newlinesBefore.push(newlines);
}
