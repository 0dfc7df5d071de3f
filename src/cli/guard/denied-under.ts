import { statSync } from 'node:fs';
import { relative } from 'node:path';
import picomatch from 'picomatch';
import { walkBounded } from '../../core/bounded-walk.ts';

/** How far the guard looks under a folder a host searches, per folder. */
export const hostSearchScan = { maxDepth: 12, maxEntries: 20_000 } as const;

/** What a folder a host reads every file of holds, as far as the Read deny rules are concerned. */
export type DeniedUnder =
  | { kind: 'none' }
  | { kind: 'found'; path: string }
  /** Too many entries to look at: the guard cannot say the search stays clear of denied files. */
  | { kind: 'unchecked' };

/**
 * The first path under `root` that the Read deny rules cover (`isReadDenied`, the engine's own
 * check, so globs, `~` and links mean what they mean for Read), found by a bounded breadth-first
 * walk. efferent's own Grep leaves such files out of its results; another agent's search does not,
 * so a folder holding one is a read of that file. A root that is not a folder is `none`: the call's
 * own decision judged that path. `.git` is not entered (searches skip it). With `glob` (the
 * search's own file filter, such as `*.ts`), only files it matches count; a negated or
 * unreadable filter counts every file.
 */
export function deniedUnder(
  root: string,
  isReadDenied: (path: string, cwd: string) => boolean,
  cwd: string,
  limits: { maxDepth: number; maxEntries: number } = hostSearchScan,
  glob?: string,
): DeniedUnder {
  const searched = fileFilter(glob);
  try {
    if (!statSync(root).isDirectory()) return { kind: 'none' };
  } catch {
    return { kind: 'none' };
  }
  let found: string | undefined;
  const end = walkBounded(root, limits, (path, entry) => {
    const folder = entry.isDirectory();
    if ((searched === undefined || (!folder && searched(relative(root, path)))) && isReadDenied(path, cwd)) {
      found = path;
      return 'stop';
    }
    return entry.name === '.git' ? 'skip' : 'descend';
  });
  if (found !== undefined) return { kind: 'found', path: found };
  return end === 'complete' ? { kind: 'none' } : { kind: 'unchecked' };
}

/** The files a search's glob selects (as ripgrep reads `--glob`), or undefined for every file. */
function fileFilter(glob: string | undefined): ((path: string) => boolean) | undefined {
  if (glob === undefined || glob === '' || glob.startsWith('!')) return undefined;
  try {
    return picomatch(glob, { basename: !glob.includes('/'), dot: true });
  } catch {
    return undefined;
  }
}
