import picomatch from 'picomatch';
import type { CanonicalPath } from '../../paths/canonical-path.ts';
import { isInsideDirectory, isUnresolvable } from '../../paths/canonical-path.ts';
import type { LinkScan } from '../../paths/link-scan.ts';
import { resolveInWorkspace, type Workspace, workingDirectories } from '../workspace.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * Reads a command's words name only as patterns: a glob argument (`cat *`, `wc -l src/*.ts`) and the
 * names a path lister hands to xargs (`find . | xargs cat`, `$(git ls-files)`). Lexically they stay
 * below a directory; physically each name may be a symbolic link the repository placed there, leading
 * anywhere, and a lister's names are split again at blanks, so a file called `a ../x` hands over `../x`.
 * The engine therefore looks at the directory on disk: every link the pattern can reach is a read of
 * its target, and a tree holding names that splitting would break, or too large to look at, cannot be
 * vouched for.
 */
export interface ExpansionReads {
  /** Every link a pattern can reach: deny rules are tried on each. */
  paths: CanonicalPath[];
  /** The links whose targets it reads (for a names-only command, only links to directories). */
  reads: CanonicalPath[];
  /** Why what the patterns expand to could not be checked (the ask names it). */
  unchecked?: string;
}

/** Glob characters bash expands in an unquoted word. */
const globMagic = /[*?[]/;

/** A pattern's static directory and the path segments after it. */
function splitPattern(word: string): { directory: string; segments: string[] } {
  const magicAt = word.search(globMagic);
  const slash = word.lastIndexOf('/', magicAt);
  const directory = slash === -1 ? '.' : word.slice(0, slash) || '/';
  const rest = slash === -1 ? word : word.slice(slash + 1);
  return { directory, segments: rest.split('/').filter((segment) => segment !== '') };
}

/** Whether a link at `relative` (below the pattern's directory) is one the pattern reaches. */
function patternReaches(segments: readonly string[], relative: string): boolean {
  const parts = relative.split('/');
  if (parts.length > segments.length) return false;
  // Conservative about shell options the command may set itself: dot files and any case match.
  return parts.every((part, index) =>
    picomatch.isMatch(part, segments[index] ?? '', { dot: true, nocase: true }),
  );
}

function fromScan(
  scan: LinkScan,
  start: string,
  keep: (relative: string) => boolean,
  namesOnly: boolean,
  result: ExpansionReads,
): void {
  for (const link of scan.links) {
    const relative = isInsideDirectory(link.path, start) ? link.path.slice(start.length + 1) : undefined;
    // A link met through another link (outside `start` as spelled) is kept: where it sits is not the point.
    if (relative !== undefined && !keep(relative)) continue;
    const path = { lexical: link.path, physical: link.target };
    result.paths.push(path);
    if (!namesOnly || link.directory) result.reads.push(path);
  }
}

/**
 * What the glob arguments of a subcommand and the names xargs gets from a path lister may read, found
 * on disk through the workspace's link scan. Without a scan (a workspace reasoned about lexically), a
 * lister's names cannot be checked and are reported as unchecked; glob arguments keep today's lexical
 * treatment.
 */
export function expansionReads(
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
  namesOnly: boolean,
): ExpansionReads {
  const result: ExpansionReads = { paths: [], reads: [] };
  // Most subcommands have neither indirect reads nor glob words: nothing to scan.
  if ((subcommand.indirectReads?.length ?? 0) === 0 && subcommand.argKinds?.includes('glob') !== true)
    return result;
  const within = workingDirectories(workspace);
  const cwd = subcommand.cwd ?? workspace.cwd;
  // Several patterns of one command often share a directory (`cat *.ts *.md`): scan it once.
  const scans = new Map<string, LinkScan | undefined>();
  const scan = (directory: string, depth?: number): LinkScan | undefined => {
    const key = `${directory}\0${depth ?? ''}`;
    if (!scans.has(key))
      scans.set(key, workspace.scanLinks?.(directory, within, depth === undefined ? {} : { depth }));
    return scans.get(key);
  };
  for (const read of subcommand.indirectReads ?? []) {
    if (read.below === undefined) continue;
    const below = scan(read.below);
    if (!workspace.scanLinks) result.unchecked ??= read.what;
    if (below === undefined) continue;
    if (!below.complete) result.unchecked ??= `${read.what} (too many entries to check where they lead)`;
    const odd = below.oddNames?.[0];
    if (odd !== undefined)
      result.unchecked ??= `${read.what}, where the name ${odd} would be split into other paths`;
    fromScan(below, read.below, () => true, namesOnly, result);
  }
  if (!workspace.scanLinks || subcommand.cwd === null) return result;
  subcommand.argv.forEach((word, index) => {
    if (index === 0 || subcommand.argKinds?.[index] !== 'glob') return;
    const { directory, segments } = splitPattern(word);
    const resolved = resolveInWorkspace(directory, workspace, cwd);
    if (isUnresolvable(resolved)) return;
    const anyDepth = segments.some((segment) => segment.includes('**'));
    const reached = scan(resolved.physical, anyDepth ? undefined : Math.max(1, segments.length));
    if (reached === undefined) return;
    if (!reached.complete)
      result.unchecked ??= `what ${word} expands to (too many entries to check where links lead)`;
    // `**` also stands for the paths `$(git ls-files)` prints, which bash splits at blanks.
    const odd = anyDepth ? reached.oddNames?.[0] : undefined;
    if (odd !== undefined)
      result.unchecked ??= `what ${word} expands to, where the name ${odd} would be split`;
    const start = resolved.physical;
    fromScan(reached, start, (relative) => anyDepth || patternReaches(segments, relative), namesOnly, result);
  });
  return result;
}
