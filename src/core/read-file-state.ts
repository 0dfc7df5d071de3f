import { LRUCache } from 'lru-cache';

/** What Read recorded about a file, so Edit and Write can refuse stale or unread files. */
export interface FileReadRecord {
  content: string;
  /** The file's mtime in ms when it was read. */
  timestamp: number;
  offset?: number;
  limit?: number;
  /** True when the model saw only part of the file. */
  isPartialView?: boolean;
}

/** An LRU of read records keyed by absolute path, bounded by entry count and total content size. */
export type ReadFileState = LRUCache<string, FileReadRecord>;

/** Defaults: 100 files, 25 MB of content. */
export function createReadFileState(options: { maxEntries?: number; maxBytes?: number } = {}): ReadFileState {
  return new LRUCache<string, FileReadRecord>({
    max: options.maxEntries ?? 100,
    maxSize: options.maxBytes ?? 25 * 1024 * 1024,
    sizeCalculation: (record) => Math.max(1, record.content.length),
  });
}

/** A copy whose later changes do not affect the original. */
export function cloneReadFileState(state: ReadFileState): ReadFileState {
  const copy = new LRUCache<string, FileReadRecord>({
    max: state.max,
    maxSize: state.maxSize,
    sizeCalculation: (record) => Math.max(1, record.content.length),
  });
  // dump() lists most recent first; load in reverse so recency order survives.
  for (const [key, entry] of [...state.dump()].reverse()) copy.set(key, { ...entry.value });
  return copy;
}
