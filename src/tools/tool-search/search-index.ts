import type { JsonSchema } from '../../core/index.ts';
import { normalize, splitWords, synonyms, terms } from './text.ts';

/** A tool as search sees it: what a catalog entry or a pool tool gives. */
export interface SearchableTool {
  /** The name the model calls it by (`mcp__server__tool` for MCP tools). */
  name: string;
  description: string;
  /** 3–10 words from the tool's author that help search (built-ins). */
  searchHint?: string | undefined;
  /** The MCP server the tool comes from. */
  server?: string | undefined;
  inputSchema?: JsonSchema | undefined;
}

/** The weights of the ranking; the defaults were tuned on the training half of bench/data's queries. */
export interface RankingWeights {
  /** How much a match counts in each field. */
  fields: Record<Field, number>;
  /** BM25 saturation and length normalisation. */
  k1: number;
  b: number;
  /** How much a synonym and a word-prefix count against the word itself. */
  synonym: number;
  prefix: number;
  /** Score multiplier added when the query covers every word of the tool's own name. */
  wholeName: number;
}

type Field = 'name' | 'server' | 'hint' | 'description' | 'params' | 'paramText';

/** The weights ToolSearch uses. */
export const defaultRankingWeights: RankingWeights = {
  fields: { name: 3, server: 1.6, hint: 2, description: 0.6, params: 0.5, paramText: 0.15 },
  k1: 1.2,
  b: 0.6,
  synonym: 0.45,
  prefix: 0.5,
  wholeName: 0.3,
};

interface Posting {
  doc: number;
  /** Field-weighted, length-normalised term frequency. */
  weight: number;
}

interface IndexedTool {
  tool: SearchableTool;
  /** The words of the tool's own name (without `mcp__server__`), normalised. */
  nameTerms: readonly string[];
  /** Every normalised term the tool has, for `+required` checks. */
  allTerms: ReadonlySet<string>;
}

/** The part of an `mcp__server__tool` name after the server; the whole name otherwise. */
export function ownName(tool: SearchableTool): string {
  if (tool.name.startsWith('mcp__')) {
    const rest = tool.name.slice(5);
    const separator = rest.indexOf('__');
    if (separator >= 0) return rest.slice(separator + 2);
  }
  return tool.name;
}

/** The server of an `mcp__server__tool` name, or the declared server. */
export function serverOf(tool: SearchableTool): string | undefined {
  if (tool.server !== undefined) return tool.server;
  if (!tool.name.startsWith('mcp__')) return undefined;
  const rest = tool.name.slice(5);
  const separator = rest.indexOf('__');
  return separator >= 0 ? rest.slice(0, separator) : undefined;
}

/** Parameter names and enum values (recursively), and the parameters' descriptions. */
function schemaText(schema: unknown, names: string[], text: string[], depth = 0): void {
  if (depth > 6 || schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node['enum']))
    for (const value of node['enum']) if (typeof value === 'string') names.push(value);
  if (typeof node['const'] === 'string') names.push(node['const']);
  const properties = node['properties'];
  if (properties && typeof properties === 'object') {
    for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
      names.push(key);
      const description = (value as Record<string, unknown> | null)?.['description'];
      if (typeof description === 'string') text.push(description);
      schemaText(value, names, text, depth + 1);
    }
  }
  for (const key of ['items', 'additionalProperties']) schemaText(node[key], names, text, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = node[key];
    if (Array.isArray(list)) for (const entry of list) schemaText(entry, names, text, depth + 1);
  }
  const defs = node['$defs'] ?? node['definitions'];
  if (defs && typeof defs === 'object')
    for (const entry of Object.values(defs as Record<string, unknown>))
      schemaText(entry, names, text, depth + 1);
}

function fieldTerms(tool: SearchableTool): Record<Field, string[]> {
  const paramNames: string[] = [];
  const paramText: string[] = [];
  schemaText(tool.inputSchema, paramNames, paramText);
  const server = serverOf(tool);
  return {
    name: splitWords(ownName(tool)).map(normalize),
    server: server === undefined ? [] : splitWords(server).map(normalize),
    hint: terms(tool.searchHint ?? ''),
    description: terms(tool.description),
    params: paramNames.flatMap((name) => splitWords(name).map(normalize)),
    paramText: terms(paramText.join(' ')),
  };
}

/** One parsed keyword query: terms, and which of them a result must contain. */
export interface KeywordQuery {
  terms: string[];
  required: string[];
}

/** Splits a keyword query into normalised terms; `+term` marks a required one. */
export function parseKeywords(query: string): KeywordQuery {
  const all: string[] = [];
  const required: string[] = [];
  const tokens = query
    .trim()
    .split(/\s+/)
    .filter((token) => token !== '');
  for (const token of tokens) {
    const isRequired = token.startsWith('+') && token.length > 1;
    const words = terms(isRequired ? token.slice(1) : token);
    all.push(...words);
    if (isRequired) required.push(...words);
  }
  // A query made only of stop words ("get") still searches for them.
  if (all.length === 0) for (const token of tokens) all.push(...splitWords(token).map(normalize));
  return { terms: [...new Set(all)], required: [...new Set(required)] };
}

/**
 * An inverted index over a tool set, ranked with BM25F: each field has a weight, term frequency
 * saturates, and a rare word counts more than a common one. Query words also match their synonyms
 * and, for words of four letters or more, longer words they begin (at lower weights); a tool whose
 * every name word the query covers gets a bonus; ties are broken by name, so the order is stable.
 */
export class ToolSearchIndex {
  readonly #tools: IndexedTool[] = [];
  readonly #postings = new Map<string, Posting[]>();
  readonly #idf = new Map<string, number>();
  readonly #vocabulary: string[];

  readonly #weights: RankingWeights;

  constructor(tools: readonly SearchableTool[], weights: RankingWeights = defaultRankingWeights) {
    this.#weights = weights;
    const { b, fields: fieldWeights } = weights;
    const perTool = tools.map(fieldTerms);
    const fields = Object.keys(fieldWeights) as Field[];
    const averages = Object.fromEntries(
      fields.map((field) => [
        field,
        Math.max(1, perTool.reduce((sum, entry) => sum + entry[field].length, 0) / Math.max(1, tools.length)),
      ]),
    ) as Record<Field, number>;
    perTool.forEach((entry, doc) => {
      const weights = new Map<string, number>();
      for (const field of fields) {
        const words = entry[field];
        const norm = 1 - b + (b * words.length) / averages[field];
        for (const word of words) weights.set(word, (weights.get(word) ?? 0) + fieldWeights[field] / norm);
      }
      for (const [term, weight] of weights) {
        const list = this.#postings.get(term) ?? [];
        list.push({ doc, weight });
        this.#postings.set(term, list);
      }
      this.#tools.push({
        tool: tools[doc] as SearchableTool,
        nameTerms: [...new Set(entry.name)],
        allTerms: new Set(weights.keys()),
      });
    });
    const count = tools.length;
    for (const [term, list] of this.#postings)
      this.#idf.set(term, Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5)));
    this.#vocabulary = [...this.#postings.keys()].sort();
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#tools.length;
  }

  /** The indexed tools, in the order given. */
  get tools(): readonly SearchableTool[] {
    return this.#tools.map((entry) => entry.tool);
  }

  /** Index terms that begin with `term` (and are longer), for partial words such as "screen". */
  #prefixed(term: string): string[] {
    if (term.length < 4) return [];
    const found: string[] = [];
    let low = 0;
    let high = this.#vocabulary.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.#vocabulary[mid] as string) < term) low = mid + 1;
      else high = mid;
    }
    for (let index = low; index < this.#vocabulary.length; index += 1) {
      const word = this.#vocabulary[index] as string;
      if (!word.startsWith(term)) break;
      if (word !== term) found.push(word);
      if (found.length >= 20) break;
    }
    return found;
  }

  /** Ranks tools for a keyword query; returns the best `limit` with their scores. */
  rank(query: KeywordQuery, limit: number): Array<{ tool: SearchableTool; score: number }> {
    const { k1, synonym: synonymWeight, prefix: prefixWeight, wholeName: wholeNameBonus } = this.#weights;
    const scores = new Map<number, number>();
    const covered = new Map<number, Set<string>>();
    for (const term of query.terms) {
      const variants: Array<[string, number]> = [[term, 1]];
      const synonymsOfTerm = synonyms(term);
      for (const synonym of synonymsOfTerm) variants.push([synonym, synonymWeight]);
      for (const longer of this.#prefixed(term)) variants.push([longer, prefixWeight]);
      const best = new Map<number, number>();
      for (const [index, [variant, factor]] of variants.entries()) {
        // The word and its synonyms cover a name word; a mere prefix does not.
        const counts = index <= synonymsOfTerm.length;
        const list = this.#postings.get(variant);
        if (!list) continue;
        const idf = this.#idf.get(variant) ?? 0;
        for (const posting of list) {
          const value = factor * idf * ((posting.weight * (k1 + 1)) / (posting.weight + k1));
          if (value > (best.get(posting.doc) ?? 0)) best.set(posting.doc, value);
          if (counts) {
            const set = covered.get(posting.doc) ?? new Set<string>();
            set.add(variant);
            covered.set(posting.doc, set);
          }
        }
      }
      for (const [doc, value] of best) scores.set(doc, (scores.get(doc) ?? 0) + value);
    }
    const results: Array<{ tool: SearchableTool; score: number }> = [];
    for (const [doc, raw] of scores) {
      const entry = this.#tools[doc] as IndexedTool;
      if (query.required.some((term) => !entry.allTerms.has(term))) continue;
      let score = raw;
      const matched = covered.get(doc);
      if (matched && entry.nameTerms.length > 0 && entry.nameTerms.every((term) => matched.has(term)))
        score *= 1 + wholeNameBonus;
      results.push({ tool: entry.tool, score });
    }
    results.sort((left, right) =>
      right.score !== left.score
        ? right.score - left.score
        : left.tool.name < right.tool.name
          ? -1
          : left.tool.name > right.tool.name
            ? 1
            : 0,
    );
    return results.slice(0, Math.max(0, limit));
  }
}

/** The result of one ToolSearch query. */
export interface ToolSearchResult {
  /** Tool names in rank order. */
  matches: string[];
  /** How the query was read. */
  kind: 'select' | 'exact' | 'server' | 'keywords';
  /** Names in a `select:` list that no tool has. */
  unknown: string[];
}

const mcpPrefixPattern = /^mcp__[A-Za-z0-9_-]+$/;

/**
 * Runs a query in any of its forms: `select:A,B` (exactly these tools), an exact tool name, an
 * `mcp__server` prefix (that server's tools, by name), or keywords with `+required` terms (ranked).
 */
export function searchTools(index: ToolSearchIndex, query: string, limit = 5): ToolSearchResult {
  const trimmed = query.trim();
  const tools = index.tools;
  const byName = (name: string) =>
    tools.find((tool) => tool.name === name) ??
    tools.find((tool) => tool.name.toLowerCase() === name.toLowerCase());
  const select = /^select:(.*)$/is.exec(trimmed);
  if (select) {
    const matches: string[] = [];
    const unknown: string[] = [];
    for (const name of (select[1] ?? '').split(',').map((part) => part.trim())) {
      if (name === '') continue;
      const tool = byName(name);
      if (tool) {
        if (!matches.includes(tool.name)) matches.push(tool.name);
      } else unknown.push(name);
    }
    return { matches, kind: 'select', unknown };
  }
  const exact = byName(trimmed);
  if (exact) return { matches: [exact.name], kind: 'exact', unknown: [] };
  if (mcpPrefixPattern.test(trimmed)) {
    const server = trimmed.slice(5).toLowerCase().replace(/_+$/, '');
    const matches = tools
      .filter((tool) => {
        const own = serverOf(tool);
        return (
          tool.name.toLowerCase().startsWith(`${trimmed.toLowerCase().replace(/_+$/, '')}__`) ||
          (own !== undefined && own.toLowerCase() === server)
        );
      })
      .map((tool) => tool.name)
      .sort();
    if (matches.length > 0) return { matches: matches.slice(0, limit), kind: 'server', unknown: [] };
  }
  const ranked = index.rank(parseKeywords(trimmed), limit);
  return { matches: ranked.map((entry) => entry.tool.name), kind: 'keywords', unknown: [] };
}
