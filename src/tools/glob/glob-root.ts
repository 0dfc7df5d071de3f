import { isAbsolute, join, resolve } from 'node:path';
import type { ToolUseContext } from '../../core/index.ts';
import { resolveToolPath } from '../shared/paths.ts';

/** Characters that make a glob segment a pattern rather than a literal name. */
export const globMagic = /[*?[\]{}()!]/;

/** Splits an absolute pattern into the directory before its first wildcard and the rest. */
export function splitAbsolutePattern(pattern: string): { base: string; pattern: string } {
  const segments = pattern.split('/');
  const firstMagic = segments.findIndex((segment) => globMagic.test(segment));
  const cut = firstMagic === -1 ? segments.length - 1 : firstMagic;
  return { base: segments.slice(0, cut).join('/') || '/', pattern: segments.slice(cut).join('/') };
}

/** The directory a Glob call walks, and the pattern matched against paths below it. */
export interface GlobRoot {
  /** Absolute directory; also what the permission engine must judge. */
  root: string;
  pattern: string;
}

/**
 * Where a Glob call really searches. `path` (default: the cwd) is the root, unless the pattern's
 * literal leading directories lead elsewhere: an absolute pattern (`/etc/*`) or one that climbs out
 * with `..` (`../other/*.ts`) moves the root to that directory. Pure, so the permission target and
 * the search itself always agree.
 */
export function globSearchRoot(
  input: { pattern: string; path?: string | undefined },
  context: Pick<ToolUseContext, 'run'>,
): GlobRoot {
  const given = input.path?.trim() ? resolveToolPath(input.path, context) : undefined;
  const start = given ?? context.run.cwd;
  if (isAbsolute(input.pattern)) {
    const split = splitAbsolutePattern(input.pattern);
    return { root: given ? join(given, split.base) : split.base, pattern: split.pattern };
  }
  const split = splitAbsolutePattern(`/${input.pattern}`);
  // Without `..` the walk stays below `start` (ripgrep matches globs only against what it walks).
  if (!split.base.split('/').includes('..')) return { root: start, pattern: input.pattern };
  return { root: resolve(start, split.base.slice(1)), pattern: split.pattern };
}

/**
 * The pattern's literal leading directories (`src/lib` for a pattern under it), walked instead of the
 * whole root; the rest of the pattern still matches against paths relative to the root.
 */
export function literalPrefix(pattern: string): string {
  const segments = pattern.split('/');
  const firstMagic = segments.findIndex(
    (segment) => globMagic.test(segment) || segment === '..' || segment === '.',
  );
  const literal = firstMagic === -1 ? segments.slice(0, -1) : segments.slice(0, firstMagic);
  return literal.filter(Boolean).join('/');
}
