/**
 * ToolSearch ranking, measured on a labelled set: real MCP tools captured from servers published on
 * npm (bench/data/mcp-tool-catalog.json, with each server's package and version) and queries written
 * the way a model searches (bench/data/tool-search-queries.json, split into a train half used to tune
 * and a held-out test half). Three rankers side by side:
 * - reference: the keyword scoring Claude Code's ToolSearch uses, re-implemented from its published
 *   weights (exact name part 10, 12 for MCP; partial part 5, 6 for MCP; searchHint 4; description
 *   word 2; full-name substring 3 when nothing else matched);
 * - bm25: plain BM25 over name + description + parameter names (lower-cased words, no stemming);
 * - efferent: the ToolSearch index (BM25F with name/server/hint/description/parameter fields, split
 *   identifiers, stemming, synonyms, prefixes, whole-name bonus).
 * Reports recall@5 and MRR per split and kind, and the latency per query over 1,000 tools.
 * `npx tsx bench/tool-search.ts [--json]`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseCatalog,
  type SearchableTool,
  searchTools,
  ToolSearchIndex,
} from '../src/tools/tool-search/index.ts';

const json = process.argv.includes('--json');
const data = join(import.meta.dirname, 'data');
const catalog = parseCatalog(readFileSync(join(data, 'mcp-tool-catalog.json'), 'utf8'));
interface LabelledQuery {
  query: string;
  relevant: string[];
  kind: string;
  split: 'train' | 'test';
}
const queries = JSON.parse(readFileSync(join(data, 'tool-search-queries.json'), 'utf8')) as LabelledQuery[];

type Ranker = (tools: readonly SearchableTool[]) => (query: string, limit: number) => string[];

/** Claude Code's keyword scoring, from its published weights. */
const reference: Ranker = (tools) => {
  const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const entries = tools.map((tool) => {
    const isMcp = tool.name.startsWith('mcp__');
    const bare = isMcp ? tool.name.slice(5) : tool.name;
    const parts = bare
      .split(/__|_/)
      .flatMap((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' '))
      .map((part) => part.toLowerCase())
      .filter((part) => part !== '');
    return {
      tool,
      isMcp,
      parts,
      lowerName: tool.name.toLowerCase(),
      description: tool.description.toLowerCase(),
      hint: (tool.searchHint ?? '').toLowerCase(),
    };
  });
  return (query, limit) => {
    const tokens = query
      .toLowerCase()
      .split(/\s+/)
      .filter((token) => token !== '');
    const required = tokens
      .filter((token) => token.startsWith('+') && token.length > 1)
      .map((token) => token.slice(1));
    const terms = tokens.map((token) => (token.startsWith('+') ? token.slice(1) : token));
    const scored: Array<{ name: string; score: number; order: number }> = [];
    entries.forEach((entry, order) => {
      const wordIn = (text: string, term: string) => new RegExp(`\\b${escapeRegex(term)}\\b`).test(text);
      if (
        required.some(
          (term) =>
            !entry.parts.some((part) => part.includes(term)) &&
            !wordIn(entry.description, term) &&
            !wordIn(entry.hint, term),
        )
      )
        return;
      let score = 0;
      for (const term of terms) {
        if (entry.parts.includes(term)) score += entry.isMcp ? 12 : 10;
        else if (entry.parts.some((part) => part.includes(term))) score += entry.isMcp ? 6 : 5;
        if (entry.hint !== '' && wordIn(entry.hint, term)) score += 4;
        if (wordIn(entry.description, term)) score += 2;
      }
      if (score === 0 && terms.some((term) => entry.lowerName.includes(term))) score = 3;
      if (score > 0) scored.push({ name: entry.tool.name, score, order });
    });
    scored.sort((left, right) => right.score - left.score || left.order - right.order);
    return scored.slice(0, limit).map((entry) => entry.name);
  };
};

/** Plain BM25 over name + description + parameter names. */
const bm25: Ranker = (tools) => {
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== '');
  const docs = tools.map((tool) => {
    const params = Object.keys((tool.inputSchema?.['properties'] as Record<string, unknown>) ?? {});
    const tokens = words(`${tool.name} ${tool.description} ${params.join(' ')}`);
    const tf = new Map<string, number>();
    for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
    return { name: tool.name, tf, length: tokens.length };
  });
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const doc of docs) for (const token of doc.tf.keys()) df.set(token, (df.get(token) ?? 0) + 1);
  const k1 = 1.2;
  const b = 0.75;
  return (query, limit) => {
    const terms = [...new Set(words(query))];
    const scored: Array<{ name: string; score: number }> = [];
    for (const doc of docs) {
      let score = 0;
      for (const term of terms) {
        const f = doc.tf.get(term);
        if (!f) continue;
        const n = df.get(term) ?? 0;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * doc.length) / average));
      }
      if (score > 0) scored.push({ name: doc.name, score });
    }
    scored.sort((left, right) => right.score - left.score || (left.name < right.name ? -1 : 1));
    return scored.slice(0, limit).map((entry) => entry.name);
  };
};

const efferent: Ranker = (tools) => {
  const index = new ToolSearchIndex(tools);
  return (query, limit) => searchTools(index, query, limit).matches;
};

const rankers: Record<string, Ranker> = { reference, bm25, efferent };

interface Scores {
  recall5: number;
  mrr: number;
  count: number;
}

function evaluate(
  search: (query: string, limit: number) => string[],
  subset: readonly LabelledQuery[],
): Scores {
  let recall = 0;
  let mrr = 0;
  for (const item of subset) {
    const ranked = search(item.query, 50);
    const top = new Set(ranked.slice(0, 5));
    const relevant = new Set(item.relevant);
    recall += item.relevant.filter((name) => top.has(name)).length / Math.min(5, relevant.size);
    const first = ranked.findIndex((name) => relevant.has(name));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  }
  return {
    recall5: recall / Math.max(1, subset.length),
    mrr: mrr / Math.max(1, subset.length),
    count: subset.length,
  };
}

/** A pool of at least `size` tools: the catalog, then copies under other server names. */
function poolOf(size: number): SearchableTool[] {
  const pool: SearchableTool[] = [];
  for (let copy = 0; pool.length < size; copy += 1) {
    for (const tool of catalog) {
      if (pool.length >= size) break;
      pool.push(
        copy === 0
          ? tool
          : {
              ...tool,
              name: tool.name.replace(/^mcp__([^_]+(?:_[^_]+)*?)__/, `mcp__$1${copy}__`),
              server: `${tool.server ?? 'x'}${copy}`,
            },
      );
    }
  }
  return pool;
}

function latency(ranker: Ranker, tools: readonly SearchableTool[]): { buildMs: number; perQueryMs: number } {
  const started = performance.now();
  const search = ranker(tools);
  const buildMs = performance.now() - started;
  for (const item of queries.slice(0, 20)) search(item.query, 5);
  const rounds = 5;
  const begin = performance.now();
  for (let round = 0; round < rounds; round += 1) for (const item of queries) search(item.query, 5);
  return { buildMs, perQueryMs: (performance.now() - begin) / (rounds * queries.length) };
}

const splits: Array<[string, readonly LabelledQuery[]]> = [
  ['train', queries.filter((item) => item.split === 'train')],
  ['test (held out)', queries.filter((item) => item.split === 'test')],
  ['all', queries],
];
const kinds = [...new Set(queries.map((item) => item.kind))].sort();
const thousand = poolOf(1000);
const report: Record<string, unknown> = { tools: catalog.length, queries: queries.length, results: {} };
const results = report['results'] as Record<string, unknown>;
for (const [name, ranker] of Object.entries(rankers)) {
  const search = ranker(catalog);
  results[name] = {
    ...Object.fromEntries(splits.map(([split, subset]) => [split, evaluate(search, subset)])),
    ...Object.fromEntries(
      kinds.map((kind) => [
        `kind:${kind}`,
        evaluate(
          search,
          queries.filter((item) => item.kind === kind),
        ),
      ]),
    ),
    latency1000: latency(ranker, thousand),
  };
}

if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const servers = new Set(catalog.map((tool) => tool.server)).size;
  process.stdout.write(
    `${catalog.length} tools from ${servers} MCP servers, ${queries.length} labelled queries\n\n`,
  );
  const columns = [...splits.map(([split]) => split), ...kinds.map((kind) => `kind:${kind}`)];
  const pad = (text: string, width: number) => text.padEnd(width);
  process.stdout.write(`${pad('ranker', 10)}${columns.map((column) => pad(column, 22)).join('')}\n`);
  process.stdout.write(`${pad('', 10)}${columns.map(() => pad('recall@5  MRR', 22)).join('')}\n`);
  for (const [name, value] of Object.entries(results)) {
    const row = value as Record<string, Scores>;
    const cells = columns.map((column) => {
      const scores = row[column] as Scores;
      return pad(`${scores.recall5.toFixed(3)}     ${scores.mrr.toFixed(3)}`, 22);
    });
    process.stdout.write(`${pad(name, 10)}${cells.join('')}\n`);
  }
  process.stdout.write(`\nlatency over ${thousand.length} tools (index built once, then per query):\n`);
  for (const [name, value] of Object.entries(results)) {
    const { buildMs, perQueryMs } = (value as { latency1000: { buildMs: number; perQueryMs: number } })
      .latency1000;
    process.stdout.write(
      `  ${pad(name, 10)} build ${buildMs.toFixed(1)} ms, ${perQueryMs.toFixed(3)} ms per query\n`,
    );
  }
}
