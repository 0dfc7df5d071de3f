import { join, relative } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { LRUCache } from 'lru-cache';
import type { PermissionBehavior } from '../../core/index.ts';

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

const nonAscii = /[^\x00-\x7f]/;
const defaultIgnorable = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Text as deny and ask rules compare it: the names a file system may take for the same name are
 * joined. NFC (APFS compares normalised names, HFS+ stores them decomposed), default-ignorable code
 * points removed (HFS+ ignores them, CVE-2014-9390), and Unicode case folded (case-insensitive
 * volumes: the Kelvin sign is `k`, the long s is `s`). ASCII text is only lowercased.
 */
export function foldRuleText(text: string): string {
  if (!nonAscii.test(text)) return /[A-Z]/.test(text) ? text.toLowerCase() : text;
  return text.normalize('NFC').replace(defaultIgnorable, '').toUpperCase().toLowerCase().normalize('NFC');
}

// Compiled matchers are reused across decisions; bounded so a long session cannot grow it forever.
const compiled = new LRUCache<string, Ignore>({ max: 4096 });

function matcherFor(pattern: string, caseInsensitive: boolean): Ignore {
  const key = `${caseInsensitive ? 'i' : 's'}:${pattern}`;
  let matcher = compiled.get(key);
  if (!matcher) {
    const text = caseInsensitive ? foldRuleText(pattern) : pattern;
    matcher = ignore({ ignorecase: caseInsensitive, allowRelativePaths: true }).add(text);
    compiled.set(key, matcher);
  }
  return matcher;
}

/** Options for {@link pathPatternMatches}. */
export interface PathMatchOptions {
  /**
   * Deny and ask rules match case-insensitively (case-insensitive filesystems exist), and on folded
   * text ({@link foldRuleText}): the pattern and the path below the anchor, the anchor itself too.
   */
  caseInsensitive: boolean;
  /** Also match when the pattern covers something inside the path (the path may be a directory searched recursively). */
  coverChildren: boolean;
}

/** An anchored pattern with its matcher, compiled once (a rule index keeps it for its lifetime). */
export interface CompiledPathPattern {
  anchored: AnchoredPathPattern;
  matcher: Ignore;
  coverChildren: boolean;
  /** Compare folded text ({@link foldRuleText}); set for case-insensitive matching. */
  fold?: boolean;
}

/** Compiles an anchored pattern for repeated matching with the same options (the matcher is shared through the cache). */
export function compilePathPattern(
  anchored: AnchoredPathPattern,
  options: PathMatchOptions,
): CompiledPathPattern {
  return {
    anchored,
    matcher: matcherFor(anchored.pattern, options.caseInsensitive),
    coverChildren: options.coverChildren,
    fold: options.caseInsensitive,
  };
}

/** Whether an absolute, canonical path is covered by a compiled pattern. */
export function compiledPathMatches(compiled: CompiledPathPattern, path: string): boolean {
  const { anchored, matcher, coverChildren } = compiled;
  const rel = compiled.fold
    ? relative(foldRuleText(anchored.base), foldRuleText(path))
    : relative(anchored.base, path);
  // Only a first segment that is exactly `..` leaves the anchor: `..x.key` and `..data/` are names in it.
  if (rel === '..' || rel.startsWith('../') || rel.startsWith('/')) return false;
  if (rel === '') {
    return coverChildren && matcher.ignores('efferent-any-child');
  }
  if (matcher.ignores(rel)) return true;
  if (matcher.ignores(`${rel}/`)) return true;
  return coverChildren && matcher.ignores(join(rel, 'efferent-any-child'));
}

/** Whether an absolute, canonical path is covered by an anchored pattern. */
export function pathPatternMatches(
  anchored: AnchoredPathPattern,
  path: string,
  options: PathMatchOptions,
): boolean {
  return compiledPathMatches(
    {
      anchored,
      matcher: matcherFor(anchored.pattern, options.caseInsensitive),
      coverChildren: options.coverChildren,
      fold: options.caseInsensitive,
    },
    path,
  );
}
