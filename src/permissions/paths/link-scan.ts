import { type Dirent, readdirSync, statSync } from 'node:fs';
import { fsRealpath, isInsideDirectory } from './canonical-path.ts';

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
}

/**
 * Looks for symbolic links under an existing directory the way a program that follows them while
 * recursing would meet them: links to directories inside `within` are followed (each physical
 * directory once), links leading elsewhere are reported and not entered. Undefined when the path is
 * not a directory. Injected like realpath, so decisions can be made without a disk.
 */
export type LinkScanFn = (directory: string, within: readonly string[]) => LinkScan | undefined;

/** How much of a tree is looked at before the answer becomes "could not check". */
export const linkScanLimits = { entries: 20_000, depth: 40 } as const;

/** {@link LinkScanFn} on the real filesystem. */
export const fsLinkScan: LinkScanFn = (directory, within) => {
  if (!isDirectory(directory)) return undefined;
  const start = fsRealpath(directory) ?? directory;
  const links: FoundLink[] = [];
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
      if (++entries > linkScanLimits.entries) return { links, complete: false };
      const path = `${current.path === '/' ? '' : current.path}/${child.name}`;
      let next: string | undefined;
      if (child.isSymbolicLink()) {
        const target = fsRealpath(path) ?? path;
        const directory = isDirectory(target);
        links.push({ path, target, directory });
        if (directory && within.some((root) => isInsideDirectory(target, root))) next = target;
      } else if (child.isDirectory()) next = path;
      if (next === undefined || visited.has(next)) continue;
      if (current.depth + 1 > linkScanLimits.depth) return { links, complete: false };
      visited.add(next);
      queue.push({ path: next, depth: current.depth + 1 });
    }
  }
  return { links, complete: true };
};

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
