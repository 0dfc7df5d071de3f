import type { PermissionBehavior } from '../../core/index.ts';
import { compileDomainPattern, type DomainPattern, domainMatches } from './domain-pattern.ts';
import type { PathAnchors } from './path-pattern.ts';
import { indexPathRules, type PathLookup, type PathRuleIndex } from './path-rule-index.ts';
import type { PermissionRule, RuleSet } from './rule-types.ts';
import { indexShellRules, type ShellRuleIndex } from './shell-rule-index.ts';
import { isToolNameGlob, toolNameMatches } from './tool-names.ts';

/**
 * A rule set compiled once: every lookup a decision makes (tool-wide rules, parameter rules, shell
 * rules by first word, path rules by directory, domain rules by host suffix, MCP rules by server) is
 * answered from structures built the first time they are asked for and kept as long as the rule set
 * lives. Each lookup returns exactly what scanning the lists in order would.
 */

/** The tool facts a tool-wide lookup needs. */
export interface RuleSubjectNames {
  name: string;
  aliases: readonly string[];
}

const parameterPattern = /^([A-Za-z_][A-Za-z0-9_]*):(.*)$/s;

/** For `Tool(param:value)` content: the parameter name and value, or undefined. */
function parameterOf(rule: PermissionRule): { name: string; value: string } | undefined {
  const content = rule.value.ruleContent;
  if (content === undefined) return undefined;
  const match = parameterPattern.exec(content);
  return match?.[1] === undefined ? undefined : { name: match[1], value: match[2] ?? '' };
}

/** Content rules of some families, in list order; parameter rules are set aside per input. */
class ContentList {
  private shellIndex: ShellRuleIndex | undefined;
  private readonly pathIndexes = new Map<PathLookup, Map<string, Map<string, PathRuleIndex>>>();
  private domainIndex: DomainRuleIndex | undefined;
  private readonly filtered = new Map<string, ContentList>();
  /** Names of the parameters some rules here could be read as (`git:*` reads as parameter `git`). */
  private readonly parameterNames: string[];

  constructor(readonly rules: readonly PermissionRule[]) {
    this.parameterNames = [
      ...new Set(rules.map((rule) => parameterOf(rule)?.name).filter((name) => name !== undefined)),
    ];
  }

  /** The list without the rules that are parameter rules for this input (those are decided apart). */
  forInput(input: Record<string, unknown>): ContentList {
    if (!this.parameterNames.some((name) => Object.hasOwn(input, name))) return this;
    const present = this.parameterNames.filter((name) => Object.hasOwn(input, name));
    if (present.length === 0) return this;
    const key = present.join('\0');
    let list = this.filtered.get(key);
    if (!list) {
      list = new ContentList(
        this.rules.filter((rule) => {
          const parameter = parameterOf(rule);
          return parameter === undefined || !Object.hasOwn(input, parameter.name);
        }),
      );
      this.filtered.set(key, list);
    }
    return list;
  }

  shell(): ShellRuleIndex {
    this.shellIndex ??= indexShellRules(this.rules);
    return this.shellIndex;
  }

  paths(lookup: PathLookup, anchors: Omit<PathAnchors, 'root'>): PathRuleIndex {
    // Keyed by the anchors' own strings, one map per level: no key is built per decision (the
    // strings are the workspace's, the same at every call, and keep their hash).
    let byCwd = this.pathIndexes.get(lookup);
    if (!byCwd) {
      byCwd = new Map();
      this.pathIndexes.set(lookup, byCwd);
    }
    let byHome = byCwd.get(anchors.cwd);
    if (!byHome) {
      // A session works in a handful of directories; a pathological caller must not grow this forever.
      if (byCwd.size >= 64) byCwd.clear();
      byHome = new Map();
      byCwd.set(anchors.cwd, byHome);
    }
    let index = byHome.get(anchors.home);
    if (!index) {
      if (byHome.size >= 64) byHome.clear();
      index = indexPathRules(this.rules, lookup, anchors);
      byHome.set(anchors.home, index);
    }
    return index;
  }

  domains(): DomainRuleIndex {
    this.domainIndex ??= new DomainRuleIndex(this.rules);
    return this.domainIndex;
  }
}

/** `domain:` rules bucketed by the last label of the hosts they can match. */
export class DomainRuleIndex {
  /** Whether any rule here is a `domain:` rule. */
  readonly size: number;
  private readonly byLastLabel = new Map<
    string,
    Array<{ order: number; rule: PermissionRule; pattern: DomainPattern }>
  >();
  private readonly anyLabel: Array<{ order: number; rule: PermissionRule; pattern: DomainPattern }> = [];

  constructor(rules: readonly PermissionRule[]) {
    let size = 0;
    rules.forEach((rule, order) => {
      const content = rule.value.ruleContent ?? '';
      if (!content.startsWith('domain:')) return;
      size++;
      const pattern = compileDomainPattern(content.slice(7));
      const entry = { order, rule, pattern };
      const host = pattern.anySubdomainOf;
      const lastLabel =
        host !== undefined ? host.slice(host.lastIndexOf('.') + 1) : (pattern.lastLabel ?? '');
      const literal = lastLabel !== '' && !lastLabel.includes('*') ? lastLabel : undefined;
      if (literal === undefined) this.anyLabel.push(entry);
      else {
        const bucket = this.byLastLabel.get(literal);
        if (bucket) bucket.push(entry);
        else this.byLastLabel.set(literal, [entry]);
      }
    });
    this.size = size;
  }

  /** The first `domain:` rule (list order) covering the host. */
  find(url: { host: string; port: string; protocol: string }): PermissionRule | undefined {
    const lastLabel = url.host.slice(url.host.lastIndexOf('.') + 1);
    let best: { order: number; rule: PermissionRule } | undefined;
    for (const list of [this.anyLabel, this.byLastLabel.get(lastLabel) ?? []]) {
      for (const entry of list) {
        if (best && best.order <= entry.order) break;
        if (domainMatches(entry.pattern, url)) {
          best = entry;
          break;
        }
      }
    }
    return best?.rule;
  }
}

/** The names a tool-wide rule may be stored under, per tool: a pool has few tools, each asked about often. */
const keysBySubject = new Map<string, readonly string[]>();
/** More distinct tools than any pool holds: past it the memo starts again rather than grow. */
const maxRememberedSubjects = 4096;

/**
 * The tool's name, its aliases, and for an MCP tool every `mcp__server` prefix of a name: a bare
 * server rule (`mcp__github`) is stored under its name.
 */
function lookupKeys(subject: RuleSubjectNames): readonly string[] {
  const id = subject.aliases.length === 0 ? subject.name : [subject.name, ...subject.aliases].join('\0');
  const known = keysBySubject.get(id);
  if (known) return known;
  const keys = new Set<string>();
  for (const name of [subject.name, ...subject.aliases]) {
    keys.add(name);
    if (!name.startsWith('mcp__')) continue;
    for (let at = name.indexOf('__', 5); at !== -1; at = name.indexOf('__', at + 1))
      keys.add(name.slice(0, at));
  }
  if (keysBySubject.size >= maxRememberedSubjects) keysBySubject.clear();
  const list = [...keys];
  keysBySubject.set(id, list);
  return list;
}

/** Tool-wide rules (no content), by exact name and by MCP server; glob names are tried one by one. */
class ToolWideIndex {
  private readonly byName = new Map<string, Array<{ order: number; rule: PermissionRule }>>();
  private readonly globs: Array<{ order: number; rule: PermissionRule }> = [];

  constructor(rules: readonly PermissionRule[]) {
    rules.forEach((rule, order) => {
      if (rule.value.ruleContent !== undefined) return;
      const name = rule.value.toolName;
      if (isToolNameGlob(name)) {
        this.globs.push({ order, rule });
        return;
      }
      const list = this.byName.get(name);
      if (list) list.push({ order, rule });
      else this.byName.set(name, [{ order, rule }]);
    });
  }

  find(subject: RuleSubjectNames): PermissionRule | undefined {
    let best = earliestToolMatch(this.globs, subject, undefined);
    for (const key of lookupKeys(subject)) {
      const entries = this.byName.get(key);
      if (entries) best = earliestToolMatch(entries, subject, best);
    }
    return best?.rule;
  }
}

type OrderedRule = { order: number; rule: PermissionRule };

/** The first of `entries` (in rule order) naming the subject's tool, when it comes before `best`; else `best`. */
function earliestToolMatch(
  entries: readonly OrderedRule[],
  subject: RuleSubjectNames,
  best: OrderedRule | undefined,
): OrderedRule | undefined {
  for (const entry of entries) {
    if (best && best.order <= entry.order) return best;
    if (toolNameMatches(entry.rule.value.toolName, subject.name, subject.aliases)) return entry;
  }
  return best;
}

/** Parameter rules (`Tool(param:value)`) by tool name. */
class ParameterIndex {
  private readonly byTool = new Map<string, Array<{ rule: PermissionRule; name: string; value: string }>>();

  constructor(rules: readonly PermissionRule[]) {
    for (const rule of rules) {
      const parameter = parameterOf(rule);
      if (!parameter) continue;
      const list = this.byTool.get(rule.value.toolName);
      if (list) list.push({ rule, ...parameter });
      else this.byTool.set(rule.value.toolName, [{ rule, ...parameter }]);
    }
  }

  /** The first parameter rule of this tool whose field equals its value (as written). */
  find(toolName: string, input: Record<string, unknown>): PermissionRule | undefined {
    return this.byTool.get(toolName)?.find((entry) => {
      if (!Object.hasOwn(input, entry.name)) return false;
      const value = input[entry.name];
      if (value !== null && typeof value === 'object') return false;
      return String(value) === entry.value;
    })?.rule;
  }
}

/**
 * The file tools a deny or ask rule family stands for: `Edit(…)` rules apply to every tool that edits
 * files and `Read(…)` rules to every tool that reads them, so a deny written under any member's name
 * (`Write(*.ipynb)`, `Grep(./secrets/**)`) is a rule of the whole family, and a tool-wide `Edit` or
 * `Read` deny covers the family's tools. Allow rules stay with the tool they name.
 */
export const fileToolFamilies: Readonly<Record<'Edit' | 'Read', readonly string[]>> = {
  Edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'],
  Read: ['Read', 'Grep', 'Glob', 'NotebookRead', 'LS'],
};

/** The rule tool names a content lookup for `families` reads, family members included. */
function widenedFamilies(families: readonly string[]): readonly string[] {
  if (!families.includes('Edit') && !families.includes('Read')) return families;
  const names = new Set(families);
  for (const family of ['Edit', 'Read'] as const)
    if (families.includes(family)) for (const name of fileToolFamilies[family]) names.add(name);
  return [...names];
}

/** The subject with the name of the family its tool belongs to among its aliases (Write → Edit). */
function widenedSubject(subject: RuleSubjectNames): RuleSubjectNames {
  for (const family of ['Edit', 'Read'] as const) {
    const members = fileToolFamilies[family];
    if (subject.name !== family && members.includes(subject.name) && !subject.aliases.includes(family))
      return { name: subject.name, aliases: [...subject.aliases, family] };
  }
  return subject;
}

/** The same key for the same names in any order (most lookups name one or two families). */
function familiesKey(families: readonly string[]): string {
  if (families.length === 1) return families[0] ?? '';
  if (families.length === 2) {
    const [first = '', second = ''] = families;
    return first < second ? `${first}\0${second}` : `${second}\0${first}`;
  }
  return [...families].sort().join('\0');
}

/** One behavior's rules, compiled. */
class BehaviorIndex {
  private toolWideIndex: ToolWideIndex | undefined;
  private parameterIndex: ParameterIndex | undefined;
  private readonly families = new Map<string, ContentList>();
  private parameterNames: string[] | undefined;

  /** `widen`: deny and ask rules, which hold for every tool of the file-tool family they name. */
  constructor(
    readonly rules: readonly PermissionRule[],
    private readonly widen = false,
  ) {}

  /**
   * Whether the input has a field some rule here could be read as a parameter rule for: only then
   * can {@link content} give a list that depends on the input.
   */
  inputNamesParameters(input: Record<string, unknown>): boolean {
    this.parameterNames ??= [
      ...new Set(this.rules.map((rule) => parameterOf(rule)?.name).filter((name) => name !== undefined)),
    ];
    return this.parameterNames.some((name) => Object.hasOwn(input, name));
  }

  toolWide(subject: RuleSubjectNames): PermissionRule | undefined {
    this.toolWideIndex ??= new ToolWideIndex(this.rules);
    return this.toolWideIndex.find(this.widen ? widenedSubject(subject) : subject);
  }

  parameterRule(toolName: string, input: Record<string, unknown>): PermissionRule | undefined {
    this.parameterIndex ??= new ParameterIndex(this.rules);
    return this.parameterIndex.find(toolName, input);
  }

  /** Content rules whose tool name is one of `families`, in list order. */
  content(families: readonly string[], input: Record<string, unknown>): ContentList {
    const key = familiesKey(families);
    let list = this.families.get(key);
    if (!list) {
      const names = this.widen ? widenedFamilies(families) : families;
      list = new ContentList(
        this.rules.filter(
          (rule) => rule.value.ruleContent !== undefined && names.includes(rule.value.toolName),
        ),
      );
      this.families.set(key, list);
    }
    return list.forInput(input);
  }
}

/** A rule set compiled for lookups. */
export class RuleIndex {
  readonly allow: BehaviorIndex;
  readonly deny: BehaviorIndex;
  readonly ask: BehaviorIndex;

  constructor(readonly rules: RuleSet) {
    this.allow = new BehaviorIndex(rules.allow);
    this.deny = new BehaviorIndex(rules.deny, true);
    this.ask = new BehaviorIndex(rules.ask, true);
  }

  of(behavior: PermissionBehavior): BehaviorIndex {
    return behavior === 'allow' ? this.allow : behavior === 'deny' ? this.deny : this.ask;
  }
}

const compiled = new WeakMap<RuleSet, RuleIndex>();
const byLists = new WeakMap<readonly PermissionRule[], WeakMap<object, WeakMap<object, RuleIndex>>>();

/**
 * The compiled form of a rule set, built once per rule set: the same object, or a new object holding
 * the same three lists, gets the same index.
 */
export function compileRuleSet(rules: RuleSet): RuleIndex {
  const cached = compiled.get(rules);
  if (cached) return cached;
  let byDeny = byLists.get(rules.allow);
  if (!byDeny) {
    byDeny = new WeakMap();
    byLists.set(rules.allow, byDeny);
  }
  let byAsk = byDeny.get(rules.deny);
  if (!byAsk) {
    byAsk = new WeakMap();
    byDeny.set(rules.deny, byAsk);
  }
  let index = byAsk.get(rules.ask);
  if (!index) {
    index = new RuleIndex(rules);
    byAsk.set(rules.ask, index);
  }
  compiled.set(rules, index);
  return index;
}

export type { BehaviorIndex, ContentList };
