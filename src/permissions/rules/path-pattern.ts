import { dirname, join, relative } from 'node:path';
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
 *
 * Deny and ask rules mean the files their text names however it is spelled: `{a,b}` alternatives are
 * expanded, `.`, empty and folded `..` segments removed, and a leading `#` or `!` kept as part of a
 * name (gitignore would read a comment or a negation). Alternatives under different anchors share
 * their common ancestor, one gitignore line each.
 */
export function anchorPathPattern(
  content: string,
  behavior: PermissionBehavior,
  anchors: PathAnchors,
): AnchoredPathPattern {
  if (behavior === 'allow') return anchorOne(content, behavior, anchors);
  const alternatives = expandRuleBraces(content).map((text) =>
    tidyPattern(anchorOne(text, behavior, anchors)),
  );
  const [only] = alternatives;
  return alternatives.length === 1 && only ? only : joinAlternatives(alternatives);
}

function anchorOne(content: string, behavior: PermissionBehavior, anchors: PathAnchors): AnchoredPathPattern {
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

/** How many alternatives a rule's braces may expand to; past it the rule covers everything below the text before its first brace. */
export const ruleBraceLimit = 256;

/** The top-level `{…,…}` group in a rule's text: where it starts and ends and its alternatives. */
function firstBraceGroup(text: string): { start: number; end: number; parts: string[] } | undefined {
  for (let start = 0; start < text.length; start++) {
    if (text[start] === '\\') {
      start++;
      continue;
    }
    if (text[start] !== '{') continue;
    const parts: string[] = [];
    let depth = 0;
    let from = start + 1;
    for (let at = start + 1; at < text.length; at++) {
      const char = text[at];
      if (char === '\\') at++;
      else if (char === '{') depth++;
      else if (char === '}' && depth > 0) depth--;
      else if (char === ',' && depth === 0) {
        parts.push(text.slice(from, at));
        from = at + 1;
      } else if (char === '}') {
        parts.push(text.slice(from, at));
        if (parts.length > 1) return { start, end: at, parts };
        break;
      }
    }
  }
  return undefined;
}

/** Every text a rule's `{a,b}` alternatives spell (nested groups too), bounded by {@link ruleBraceLimit}. */
export function expandRuleBraces(text: string): string[] {
  const results: string[] = [];
  const pending = [text];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const group = firstBraceGroup(current);
    if (!group) {
      if (!results.includes(current)) results.push(current);
      continue;
    }
    for (const part of group.parts)
      pending.push(`${current.slice(0, group.start)}${part}${current.slice(group.end + 1)}`);
    if (results.length + pending.length > ruleBraceLimit) {
      const before = text.slice(0, text.indexOf('{'));
      return [before.endsWith('/') || before === '' ? `${before}**` : `${before}*/**`];
    }
  }
  return results;
}

const globMagic = /[*?[\\]/;

/**
 * An anchored deny pattern without the spellings no path has: empty and `.` segments dropped, `..`
 * folded into the segment before it (a wildcard segment before it becomes `**`, a superset), or into
 * the anchor when it climbs above it; a bare pattern starting with `#` or `!` escaped. A pattern with
 * nothing left covers everything below the anchor.
 */
function tidyPattern(anchored: AnchoredPathPattern): AnchoredPathPattern {
  const rooted = anchored.pattern.startsWith('/');
  if (!rooted) {
    const special = anchored.pattern.startsWith('#') || anchored.pattern.startsWith('!');
    const bare = special ? `\\${anchored.pattern}` : anchored.pattern;
    if (!/(^|\/)\.{1,2}(\/|$)|\/\//.test(bare)) return { base: anchored.base, pattern: bare };
    const { segments, trailing } = tidySegments(bare, false);
    return { base: anchored.base, pattern: `${segments.join('/')}${trailing}` || '**' };
  }
  if (!/\/\.{0,2}(\/|$)|.\/\//.test(anchored.pattern)) return anchored;
  const { segments, trailing, climbs } = tidySegments(anchored.pattern.slice(1), true);
  let base = anchored.base;
  for (let step = 0; step < climbs; step++) base = dirname(base);
  return { base, pattern: segments.length === 0 ? '**' : `/${segments.join('/')}${trailing}` };
}

function tidySegments(
  text: string,
  rooted: boolean,
): { segments: string[]; trailing: string; climbs: number } {
  const segments: string[] = [];
  let climbs = 0;
  for (const segment of text.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') {
      segments.push(segment);
      continue;
    }
    const last = segments[segments.length - 1];
    if (last === undefined) {
      if (rooted) climbs++;
      else segments.push(segment);
    } else if (last === '..') segments.push(segment);
    else if (last === '**' || globMagic.test(last)) segments[segments.length - 1] = '**';
    else segments.pop();
  }
  return { segments, trailing: text.endsWith('/') && segments.length > 0 ? '/' : '', climbs };
}

/** Gitignore text for a literal directory name: wildcard and escape characters escaped. */
const literalSegments = (path: string) => path.replace(/[*?[\]\\]/g, '\\$&');

/** Alternatives under different anchors as one pattern under their common ancestor, a line each. */
function joinAlternatives(alternatives: readonly AnchoredPathPattern[]): AnchoredPathPattern {
  let base = alternatives[0]?.base ?? '/';
  for (const { base: other } of alternatives)
    while (
      relative(base, other) === '..' ||
      relative(base, other).startsWith('../') ||
      relative(base, other).startsWith('/')
    )
      base = dirname(base);
  const lines = alternatives.map(({ base: own, pattern }) => {
    const below = relative(base, own);
    if (below === '') return pattern;
    const prefix = `/${literalSegments(below)}`;
    if (pattern === '**') return `${prefix}/**`;
    return pattern.startsWith('/') ? `${prefix}${pattern}` : `${prefix}/**/${pattern}`;
  });
  return { base, pattern: [...new Set(lines)].join('\n') };
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
  // A decision folds the same path for each lookup (deny, ask, allow): the last answer is kept.
  if (text === lastFolded.text) return lastFolded.folded;
  const folded = !nonAscii.test(text)
    ? /[A-Z]/.test(text)
      ? text.toLowerCase()
      : text
    : text.normalize('NFC').replace(defaultIgnorable, '').toUpperCase().toLowerCase().normalize('NFC');
  lastFolded.text = text;
  lastFolded.folded = folded;
  return folded;
}

const lastFolded = { text: '', folded: '' };

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
  /** The anchor as compared (folded when {@link fold} is set), worked out once when compiled. */
  base?: string;
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
    base: options.caseInsensitive ? foldRuleText(anchored.base) : anchored.base,
  };
}

/** A `.` or `..` segment, an empty one, or a trailing `/`: text `relative` would normalise first. */
const unnormalised = /\/\.{1,2}(?:\/|$)|\/\/|\/$/;

/**
 * `path.relative(base, path)` for absolute paths, without its two `resolve`s when both are already
 * normal (no `.`, `..` or empty segment, no trailing `/`) and `path` is `base` or below it, which
 * is every path a decision asks about a rule it may match: then the answer is the text after
 * `base/`. Anything else goes to `relative`.
 */
export function relativeBelow(base: string, path: string): string {
  if (path.charCodeAt(0) === 47 && !unnormalised.test(path)) {
    if (base === '/') return path.slice(1);
    if (base.charCodeAt(0) === 47 && !unnormalised.test(base)) {
      if (path === base) return '';
      if (path.length > base.length && path.charCodeAt(base.length) === 47 && path.startsWith(base))
        return path.slice(base.length + 1);
    }
  }
  return relative(base, path);
}

/** Whether an absolute, canonical path is covered by a compiled pattern. */
export function compiledPathMatches(compiled: CompiledPathPattern, path: string): boolean {
  const { anchored, matcher, coverChildren } = compiled;
  const base = compiled.base ?? (compiled.fold ? foldRuleText(anchored.base) : anchored.base);
  const rel = relativeBelow(base, compiled.fold ? foldRuleText(path) : path);
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
