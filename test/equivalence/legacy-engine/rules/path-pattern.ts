// Frozen copy of the permission engine before the rule index, kept only for the equivalence run
// (test/equivalence). Do not edit: it is the reference the current engine is compared with.
import { join, relative } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { LRUCache } from 'lru-cache';
import type { PermissionBehavior } from '../../../../src/core/index.ts';

/**
 * Path rules (`Read(./secrets/**)`, `Edit(/src/**)`, `Read(~/.ssh/**)`, `Read(//etc/passwd)`) with
 * gitignore semantics, anchored as the rule's prefix says.
 */

/** Directories a path rule may be anchored to. */
export interface PathAnchors {
  /** The directory `/x` patterns start from (the settings file's project root). */
  root: string;
  cwd: string;
  home: string;
}

/** A path pattern split into the directory it is anchored to and a gitignore pattern below it. */
export interface AnchoredPathPattern {
  base: string;
  pattern: string;
}

/**
 * Resolves the rule prefix: `//abs` from `/`, `~/x` from home, `/x` from the rule's root, `./x` and
 * bare `x` from the cwd. A bare pattern with an inner slash is anchored to the cwd for allow rules
 * and matches at any depth for deny and ask rules (a deny should err towards matching).
 */
export function anchorPathPattern(
  content: string,
  behavior: PermissionBehavior,
  anchors: PathAnchors,
): AnchoredPathPattern {
  if (content.startsWith('//')) return { base: '/', pattern: `/${content.slice(2).replace(/^\/+/, '')}` };
  if (content === '~') return { base: anchors.home, pattern: '**' };
  if (content.startsWith('~/')) return { base: anchors.home, pattern: `/${content.slice(2)}` };
  if (content.startsWith('/')) return { base: anchors.root, pattern: content };
  if (content.startsWith('./')) return { base: anchors.cwd, pattern: `/${content.slice(2)}` };
  const innerSlash = content.replace(/\/+$/, '').includes('/');
  if (innerSlash && behavior !== 'allow') return { base: anchors.cwd, pattern: `**/${content}` };
  if (innerSlash) return { base: anchors.cwd, pattern: `/${content}` };
  return { base: anchors.cwd, pattern: content };
}

// Compiled matchers are reused across decisions; bounded so a long session cannot grow it forever.
const compiled = new LRUCache<string, Ignore>({ max: 4096 });

function matcherFor(pattern: string, caseInsensitive: boolean): Ignore {
  const key = `${caseInsensitive ? 'i' : 's'}:${pattern}`;
  let matcher = compiled.get(key);
  if (!matcher) {
    matcher = ignore({ ignorecase: caseInsensitive, allowRelativePaths: true }).add(pattern);
    compiled.set(key, matcher);
  }
  return matcher;
}

/** Options for {@link pathPatternMatches}. */
export interface PathMatchOptions {
  /** Deny and ask rules match case-insensitively (case-insensitive filesystems exist). */
  caseInsensitive: boolean;
  /** Also match when the pattern covers something inside the path (the path may be a directory searched recursively). */
  coverChildren: boolean;
}

/** Whether an absolute, canonical path is covered by an anchored pattern. */
export function pathPatternMatches(
  anchored: AnchoredPathPattern,
  path: string,
  options: PathMatchOptions,
): boolean {
  const rel = relative(anchored.base, path);
  if (rel.startsWith('..') || rel.startsWith('/')) return false;
  const matcher = matcherFor(anchored.pattern, options.caseInsensitive);
  if (rel === '') {
    return options.coverChildren && matcher.ignores('efferent-any-child');
  }
  if (matcher.ignores(rel)) return true;
  if (matcher.ignores(`${rel}/`)) return true;
  return options.coverChildren && matcher.ignores(join(rel, 'efferent-any-child'));
}
