import { dirname, join, resolve } from 'node:path';
import { aliasSpellings, fsRealpath, isInsideDirectory, knownLeafKind } from '../paths/canonical-path.ts';
import type { LinkScanFn } from '../paths/link-scan.ts';
import {
  type AnchoredPathPattern,
  anchorPathPattern,
  type CompiledPathPattern,
  compiledPathMatches,
  compilePathPattern,
  foldRuleText,
  type PathAnchors,
} from './path-pattern.ts';
import type { PermissionRule } from './rule-types.ts';

/**
 * Path rules (`Read(./secrets/**)`, `Edit(//etc/**)`) compiled once per rule list and working
 * directory, bucketed by the literal directory every path they match lies in (the anchor plus the
 * pattern's text up to its last `/` before a wildcard; the anchor alone for any-depth patterns). A
 * lookup visits the buckets of the path's ancestors only, and answers exactly what trying every rule
 * in order would: the first matching rule in list order.
 */

/** How a list is looked up: deny and ask rules match any spelling, ignoring case; allow rules need link and target. */
export type PathLookup = 'allow' | 'deny' | 'ask';

/** A path as rules see it: as written and resolved. */
export interface PathSpellings {
  lexical: string;
  physical: string;
}

interface IndexedPathRule {
  rule: PermissionRule;
  order: number;
  compiled: CompiledPathPattern;
  /** The literal directory every matching path lies in, resolved, ASCII-lowercased. */
  bucket: string;
  /** `pathRuleLiteralPrefix`: the directory the rule is confined to, for glob and directory checks. */
  prefix: string;
}

/**
 * The matcher's folding ({@link foldRuleText}) for bucket keys and lookups: the index must never split
 * what the matcher joins. ASCII text is only lowercased.
 */
const foldCase = foldRuleText;

/** Text `path.resolve` would change: empty, `.` or `..` segments, or a trailing `/`. */
const notResolved = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** An absolute path as `path.resolve` spells it, without its work when it already is. */
const resolvedPath = (path: string): string =>
  path.startsWith('/') && !notResolved.test(path) ? path : resolve(path);

/** Every ancestor of an absolute path, itself first, `/` last. */
function ancestorsOf(path: string): string[] {
  const result = [path];
  let current = path;
  for (;;) {
    const parent = dirname(current);
    if (parent === current) return result;
    result.push(parent);
    current = parent;
  }
}

/**
 * The directory every path an anchored pattern can match lies in. Any-depth patterns, and literal
 * text the index cannot fold or normalise safely (non-ASCII letters, `.`/`..` or empty segments),
 * fall back to the anchor: a bigger bucket, never a missed rule.
 */
function bucketOf(anchored: AnchoredPathPattern): string {
  const base = resolve(anchored.base);
  if (!anchored.pattern.startsWith('/') || anchored.pattern.includes('\n')) return foldCase(base);
  const cut = anchored.pattern.search(/[*?[\\]/);
  const literal = cut === -1 ? anchored.pattern : anchored.pattern.slice(0, cut);
  const directory = literal.slice(0, literal.lastIndexOf('/') + 1);
  if (/[^\x20-\x7e]/.test(directory) || /\/\.{0,2}\//.test(directory)) return foldCase(base);
  return foldCase(resolve(base, `.${directory}`));
}

/** The rule's literal prefix, as `pathRuleLiteralPrefix` defines it. */
function literalPrefixOf(rule: PermissionRule, anchors: Omit<PathAnchors, 'root'>): string {
  const anchored = anchorPathPattern(rule.value.ruleContent ?? '', rule.behavior, {
    ...anchors,
    root: rule.root,
  });
  if (!anchored.pattern.startsWith('/')) return anchored.base;
  return join(anchored.base, literalDirectoryOf(anchored.pattern));
}

/**
 * The text of an anchored pattern up to the last `/` before its first wildcard: whole segments only
 * (`/s*\/key` is confined to the anchor, not to a directory named `s`), the whole text when literal.
 */
export function literalDirectoryOf(pattern: string): string {
  // Alternatives (one gitignore line each) are confined only to their common anchor.
  if (pattern.includes('\n')) return '';
  const cut = pattern.search(/[*?[\\{]/);
  if (cut === -1) return pattern;
  return pattern.slice(0, pattern.lastIndexOf('/', cut) + 1);
}

/** Compiles a path rule list (in precedence order) for one working directory and home. */
export function indexPathRules(
  rules: readonly PermissionRule[],
  lookup: PathLookup,
  anchors: Omit<PathAnchors, 'root'>,
): PathRuleIndex {
  const options =
    lookup === 'allow'
      ? { caseInsensitive: false, coverChildren: false }
      : { caseInsensitive: true, coverChildren: true };
  const entries = rules.map((rule, order): IndexedPathRule => {
    const anchored = anchorPathPattern(rule.value.ruleContent ?? '', lookup, { ...anchors, root: rule.root });
    return {
      rule,
      order,
      compiled: compilePathPattern(anchored, options),
      bucket: bucketOf(anchored),
      prefix: resolve(literalPrefixOf(rule, anchors)),
    };
  });
  return new PathRuleIndex(entries, lookup, anchors.cwd, anchors.home);
}

/** Sorted literal prefixes with a range-minimum table over rule order, for "first rule inside a directory". */
class PrefixTable {
  private readonly sorted: IndexedPathRule[];
  /** levels[k][i]: the position in `sorted` of the earliest rule among sorted[i, i + 2^k). */
  private readonly levels: number[][] = [];
  private readonly byPrefix = new Map<string, IndexedPathRule[]>();

  constructor(entries: readonly IndexedPathRule[]) {
    this.sorted = [...entries].sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
    let level = this.sorted.map((_, index) => index);
    this.levels.push(level);
    for (let width = 1; width * 2 <= this.sorted.length; width *= 2) {
      const previous = level;
      level = previous
        .slice(0, previous.length - width)
        .map((left, index) => this.earlier(left, previous[index + width] ?? left));
      this.levels.push(level);
    }
    for (const entry of entries) {
      const list = this.byPrefix.get(entry.prefix);
      if (list) list.push(entry);
      else this.byPrefix.set(entry.prefix, [entry]);
    }
  }

  private earlier(left: number, right: number): number {
    return (this.sorted[left]?.order ?? 0) <= (this.sorted[right]?.order ?? 0) ? left : right;
  }

  private lowerBound(text: string): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.sorted[middle]?.prefix ?? '') < text) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The earliest rule among sorted[from, to). */
  private earliestIn(from: number, to: number): IndexedPathRule | undefined {
    if (from >= to) return undefined;
    const level = Math.floor(Math.log2(to - from));
    const row = this.levels[level] ?? [];
    const left = row[from] ?? from;
    const right = row[to - (1 << level)] ?? left;
    return this.sorted[this.earlier(left, right)];
  }

  /** The first rule (list order) whose prefix is inside `directory` (or is it). */
  firstInside(directory: string): IndexedPathRule | undefined {
    const resolved = resolvedPath(directory);
    const ranges: Array<[number, number]> =
      resolved === '/'
        ? [[0, this.sorted.length]]
        : [
            [this.lowerBound(resolved), this.lowerBound(`${resolved}\0`)],
            [this.lowerBound(`${resolved}/`), this.lowerBound(`${resolved}0`)],
          ];
    let best: IndexedPathRule | undefined;
    for (const [from, to] of ranges) {
      const candidate = this.earliestIn(from, to);
      if (!candidate || (best && best.order <= candidate.order)) continue;
      if (isInsideDirectory(candidate.prefix, directory)) {
        best = candidate;
        continue;
      }
      // `relative` treats a first segment starting with `..` as outside: check the range one by one.
      for (let index = from; index < to; index++) {
        const entry = this.sorted[index];
        if (entry && (!best || entry.order < best.order) && isInsideDirectory(entry.prefix, directory))
          best = entry;
      }
    }
    return best;
  }

  /** The first rule (list order) whose prefix holds `directory`. */
  firstHolding(directory: string): IndexedPathRule | undefined {
    let best: IndexedPathRule | undefined;
    for (const ancestor of ancestorsOf(resolvedPath(directory))) {
      for (const entry of this.byPrefix.get(ancestor) ?? []) {
        if (best && best.order <= entry.order) break;
        if (isInsideDirectory(directory, entry.prefix)) {
          best = entry;
          break;
        }
      }
    }
    return best;
  }
}

/** A compiled, bucketed list of path rules for one working directory. */
export class PathRuleIndex {
  readonly rules: readonly PermissionRule[];
  private readonly buckets = new Map<string, IndexedPathRule[]>();
  /** The lengths of the bucket keys: an ancestor of another length has no bucket to look up. */
  private readonly bucketLengths = new Set<number>();
  private prefixTable: PrefixTable | undefined;

  /** Deny and ask lookups: anchors reached through a link, resolved on first use. */
  private linkedAnchors: LinkedAnchor[] | undefined;

  constructor(
    private readonly entries: readonly IndexedPathRule[],
    private readonly lookup: PathLookup,
    private readonly cwd: string,
    private readonly home = cwd,
  ) {
    this.rules = entries.map((entry) => entry.rule);
    for (const entry of entries) {
      const bucket = this.buckets.get(entry.bucket);
      if (bucket) bucket.push(entry);
      else this.buckets.set(entry.bucket, [entry]);
      this.bucketLengths.add(entry.bucket.length);
    }
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * The rules of the buckets of every ancestor of every spelling, in list order. Most lookups meet
   * one bucket, which is already in list order; only several are merged and sorted.
   */
  private candidates(spellings: readonly string[]): readonly IndexedPathRule[] {
    let first: IndexedPathRule[] | undefined;
    let merged: Set<IndexedPathRule> | undefined;
    for (const spelling of spellings) {
      const folded = foldCase(resolvedPath(spelling));
      // Each ancestor is the text up to `end`: the path itself, then up to each `/`, then `/`.
      let end = folded.length;
      for (;;) {
        const bucket = this.bucketLengths.has(end)
          ? this.buckets.get(end === folded.length ? folded : folded.slice(0, end))
          : undefined;
        if (bucket !== undefined && bucket !== first) {
          if (first === undefined) first = bucket;
          else {
            merged ??= new Set(first);
            for (const entry of bucket) merged.add(entry);
          }
        }
        if (end <= 1) break;
        const cut = folded.lastIndexOf('/', end - 1);
        end = cut <= 0 ? 1 : cut;
      }
    }
    if (merged) return [...merged].sort((a, b) => a.order - b.order);
    return first ?? [];
  }

  /**
   * The first rule covering a path, as `findPathRule` defines it: deny and ask rules match if any
   * spelling matches (ignoring case, covering what is inside a directory); allow rules only if the
   * link path and its target both match, case-sensitively.
   */
  find(path: PathSpellings): PermissionRule | undefined {
    if (this.entries.length === 0) return undefined;
    if (this.lookup === 'allow') {
      return this.candidates([path.lexical]).find(
        (entry) =>
          compiledPathMatches(entry.compiled, path.lexical) &&
          compiledPathMatches(entry.compiled, path.physical),
      )?.rule;
    }
    this.linkedAnchors ??= linkedAnchorsOf([
      this.cwd,
      this.home,
      ...this.entries.map((entry) => entry.rule.root),
    ]);
    const spellings = spellingsOf(path, this.cwd, this.linkedAnchors);
    return this.candidates(spellings).find((entry) =>
      spellings.some((spelling) => compiledPathMatches(entry.compiled, spelling)),
    )?.rule;
  }

  private prefixes(): PrefixTable {
    this.prefixTable ??= new PrefixTable(this.entries);
    return this.prefixTable;
  }

  /** The first rule whose literal prefix lies inside one of the directories (a recursive read of them reaches it). */
  firstInside(directories: readonly string[]): PermissionRule | undefined {
    if (this.entries.length === 0) return undefined;
    const table = this.prefixes();
    const found = directories.map((directory, index) =>
      // A link's lexical and physical spellings are often the same path: look it up once.
      index > 0 && directories.indexOf(directory) < index ? undefined : table.firstInside(directory),
    );
    return earliest(found)?.rule;
  }

  /**
   * Whether a directory holds a path these rules cover, so a recursive reader of it reads one: a rule
   * confined inside it, or a rule whose wildcards reach into it from above when a bounded scan of the
   * directory (links not entered) meets a covered entry or cannot finish. Without a scanner only the
   * first answer is known.
   */
  holdsCoveredPath(path: PathSpellings, scanLinks: LinkScanFn | undefined): boolean {
    const directories = [path.lexical, path.physical];
    if (this.firstInside(directories) !== undefined) return true;
    if (scanLinks === undefined || !mayBeDirectory(path.physical)) return false;
    if (this.firstAround(directories) === undefined) return false;
    const lexicalOf = (entry: string) => `${path.lexical}${entry.slice(path.physical.length)}`;
    const scan = scanLinks(path.physical, [], {
      match: (entry) => this.find({ lexical: lexicalOf(entry), physical: entry }) !== undefined,
    });
    return scan !== undefined && (scan.matched !== undefined || !scan.complete);
  }

  /** The first rule whose literal prefix lies inside one of the directories or holds it. */
  firstAround(directories: readonly string[]): PermissionRule | undefined {
    if (this.entries.length === 0) return undefined;
    const table = this.prefixes();
    const found = directories.flatMap((directory) => [
      table.firstInside(directory),
      table.firstHolding(directory),
    ]);
    return earliest(found)?.rule;
  }
}

/**
 * False when the decision under way already saw by lstat that the path is missing or not a directory
 * (a scan would find nothing there); true when it is one, a link, or was not looked at.
 */
function mayBeDirectory(physical: string): boolean {
  const kind = knownLeafKind(physical);
  return kind === undefined || kind === 'directory' || kind === 'link';
}

/** The link, its target and their aliases, each once. */
function spellingsOf(
  path: PathSpellings,
  cwd: string,
  linkedAnchors: readonly LinkedAnchor[] = [],
): string[] {
  const aliases = aliasSpellings(path.lexical, cwd);
  if (path.physical !== path.lexical) aliases.push(...aliasSpellings(path.physical, cwd));
  const found =
    aliases.length === 0
      ? path.physical === path.lexical
        ? [path.lexical]
        : [path.lexical, path.physical]
      : [...new Set([path.lexical, path.physical, ...aliases])];
  return linkedAnchors.length === 0 ? found : reanchoredSpellings(found, linkedAnchors);
}

/** An anchor of path rules (cwd, home, a settings root) whose physical location differs from its spelling. */
export interface LinkedAnchor {
  physical: string;
  lexical: string;
}

/**
 * The anchors among `anchors` that are reached through a symbolic link, as the disk resolves them now:
 * a `./x` or `~/x` rule anchored at the link must also match the target's spelling of the same file.
 */
export function linkedAnchorsOf(anchors: readonly string[]): LinkedAnchor[] {
  const linked: LinkedAnchor[] = [];
  for (const lexical of new Set(anchors)) {
    if (!lexical.startsWith('/')) continue;
    const physical = fsRealpath(lexical);
    if (physical !== undefined && physical !== lexical && !linked.some((entry) => entry.lexical === lexical))
      linked.push({ physical, lexical });
  }
  return linked;
}

/** Each spelling, plus the same path under an anchor's link for every physical anchor it lies in. */
export function reanchoredSpellings(
  spellings: readonly string[],
  linkedAnchors: readonly LinkedAnchor[],
): string[] {
  const result = [...spellings];
  for (const spelling of spellings)
    for (const { physical, lexical } of linkedAnchors)
      if (isInsideDirectory(spelling, physical)) {
        const moved = `${lexical}${spelling.slice(physical.length)}`;
        if (!result.includes(moved)) result.push(moved);
      }
  return result;
}

function earliest(entries: ReadonlyArray<IndexedPathRule | undefined>): IndexedPathRule | undefined {
  let best: IndexedPathRule | undefined;
  for (const entry of entries) if (entry && (!best || entry.order < best.order)) best = entry;
  return best;
}
