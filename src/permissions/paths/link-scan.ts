import { type Dirent, readdirSync, statSync } from 'node:fs';
import { fsRealpath, isInsideDirectory, knownLeafKind } from './canonical-path.ts';

/** A symbolic link found under a directory: where it sits, and where it leads. */
export interface FoundLink {
  /** The link, under the physical directory it was found in. */
  path: string;
  /** Its target, resolved as the kernel would (dangling links included). */
  target: string;
  /** Whether the target is a directory (a names-only walk learns only what is inside those). */
  directory: boolean;
}

/** What a bounded look under a directory found. */
export interface LinkScan {
  links: FoundLink[];
  /** False when the bounds were reached: links may exist that were not seen. */
  complete: boolean;
  /**
   * Entries whose names word splitting or xargs would not keep whole (blanks, quotes, backslashes,
   * glob characters): a list of names printed by a program and split again may hold other paths.
   * Only the first few are kept.
   */
  oddNames?: string[];
  /** The first entry `options.match` accepted; the scan stops there. */
  matched?: string;
}

/** How deep a scan looks: `depth` 1 looks only at the directory's own entries. */
export interface LinkScanOptions {
  depth?: number;
  /** Tried on every entry's path (under the physical directory); the first it accepts ends the scan. */
  match?: (path: string) => boolean;
}

/**
 * Looks for symbolic links under an existing directory the way a program that follows them while
 * recursing would meet them: links to directories inside `within` are followed (each physical
 * directory once), links leading elsewhere are reported and not entered. Undefined when the path is
 * not a directory. Injected like realpath, so decisions can be made without a disk.
 */
export type LinkScanFn = (
  directory: string,
  within: readonly string[],
  options?: LinkScanOptions,
) => LinkScan | undefined;

/** How much of a tree is looked at before the answer becomes "could not check". */
export const linkScanLimits = { entries: 20_000, depth: 40 } as const;

/** Characters that make a printed name split into other words (xargs quoting, IFS, pathname expansion). */
const oddNameCharacters = /[\s'"\\*?[]/;

/** {@link LinkScanFn} on the real filesystem. */
export const fsLinkScan: LinkScanFn = (directory, within, options = {}) => {
  if (!isDirectory(directory)) return undefined;
  const start = fsRealpath(directory) ?? directory;
  const links: FoundLink[] = [];
  const oddNames: string[] = [];
  const visited = new Set<string>([start]);
  const queue: Array<{ path: string; depth: number }> = [{ path: start, depth: 0 }];
  let entries = 0;
  while (queue.length > 0) {
    const current = queue.shift();
    if (current === undefined) break;
    let children: Dirent[];
    try {
      children = readdirSync(current.path, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const child of children) {
      if (++entries > linkScanLimits.entries) return { links, complete: false, oddNames };
      const path = `${current.path === '/' ? '' : current.path}/${child.name}`;
      if (oddNames.length < 5 && oddNameCharacters.test(child.name)) oddNames.push(path);
      if (options.match?.(path)) return { links, complete: true, oddNames, matched: path };
      let next: string | undefined;
      if (child.isSymbolicLink()) {
        const target = fsRealpath(path) ?? path;
        const directory = isDirectory(target);
        links.push({ path, target, directory });
        if (directory && within.some((root) => isInsideDirectory(target, root))) next = target;
      } else if (child.isDirectory()) next = path;
      if (next === undefined || visited.has(next)) continue;
      if (options.depth !== undefined && current.depth + 1 >= options.depth) continue;
      if (current.depth + 1 > linkScanLimits.depth) return { links, complete: false, oddNames };
      visited.add(next);
      queue.push({ path: next, depth: current.depth + 1 });
    }
  }
  return { links, complete: true, oddNames };
};

/** Whether `path` leads to a directory (links followed); what the decision already knows is not asked again. */
function isDirectory(path: string): boolean {
  const known = knownLeafKind(path);
  if (known === 'missing' || known === 'other' || known === 'shared') return false;
  if (known === 'directory') return true;
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
