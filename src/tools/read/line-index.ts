import type { ReadFileState } from '../../core/index.ts';

/** How many lines apart the remembered byte offsets are. */
export const checkpointInterval = 4096;

/**
 * Byte offsets of every {@link checkpointInterval}-th line of one version of a large file, so a later
 * read deep into the file seeks instead of scanning from the start again.
 */
export interface LineIndex {
  /** Identity of the file version: any change invalidates the index. */
  version: string;
  /** `checkpoints[k]` is the byte offset where line `k * checkpointInterval` (0-based) starts. */
  checkpoints: number[];
  /** Total line count, once a scan reached the end. */
  totalLines?: number;
}

// Keyed by the run's read state, so the index lives and dies with the run (no process-wide cache).
const indexesByRun = new WeakMap<ReadFileState, Map<string, LineIndex>>();
const maxIndexedFiles = 16;

/** A version key from stat fields; equal keys mean the same bytes for practical purposes. */
export function fileVersion(stats: { dev: number; ino: number; size: number; mtimeMs: number }): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** The line index for this file version, creating an empty one if needed. */
export function lineIndexFor(state: ReadFileState, path: string, version: string): LineIndex {
  let indexes = indexesByRun.get(state);
  if (!indexes) {
    indexes = new Map();
    indexesByRun.set(state, indexes);
  }
  const existing = indexes.get(path);
  if (existing && existing.version === version) return existing;
  if (indexes.size >= maxIndexedFiles && !indexes.has(path)) {
    const oldest = indexes.keys().next().value;
    if (oldest !== undefined) indexes.delete(oldest);
  }
  const fresh: LineIndex = { version, checkpoints: [0] };
  indexes.set(path, fresh);
  return fresh;
}

/** The nearest known line start at or before `line` (0-based). */
export function nearestCheckpoint(index: LineIndex, line: number): { line: number; byte: number } {
  const slot = Math.min(Math.floor(line / checkpointInterval), index.checkpoints.length - 1);
  return { line: slot * checkpointInterval, byte: index.checkpoints[slot] ?? 0 };
}

/** Remembers that line `line` (a multiple of the interval) starts at `byte`. */
export function recordCheckpoint(index: LineIndex, line: number, byte: number): void {
  const slot = line / checkpointInterval;
  if (slot === index.checkpoints.length) index.checkpoints.push(byte);
}
