import { createInterface } from 'node:readline';
import { type Command, Option } from 'commander';
import { type AnyTool, EfferentError } from '../../core/index.ts';
import {
  assembleToolPool,
  getAllBaseTools,
  type SchemaProvider,
  toProviderTools,
} from '../../registry/index.ts';
import {
  loadCatalog,
  type SearchableTool,
  searchableTools,
  searchTools,
  ToolSearchIndex,
} from '../../tools/tool-search/index.ts';

/** The tool pool as the CLI builds it: every enabled built-in, in pool order. */
export function cliToolPool(): AnyTool[] {
  return assembleToolPool({ builtIns: getAllBaseTools() });
}

/** Human-readable rendering of the exact definitions a provider receives. */
function renderDefinitions(definitions: readonly unknown[]): string {
  return definitions
    .map((definition) => {
      const record = definition as Record<string, unknown>;
      const inner = (record['function'] as Record<string, unknown> | undefined) ?? record;
      const { name, description, ...schema } = inner;
      return `## ${String(name)}\n\n${String(description)}\n\n${JSON.stringify(schema, null, 2)}\n`;
    })
    .join('\n');
}

interface SearchOptions {
  catalog?: string;
  limit: string;
  json?: boolean;
  jsonl?: boolean;
}

function parseLimit(value: unknown, where: string): number {
  const limit = typeof value === 'string' ? Number(value) : value;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new EfferentError('usage', `${where} must be a whole number from 1 to 1000.`);
  }
  return limit;
}

/** `efferent tools search`: ranks a catalog (or the built-in pool) for one query or a stream of them. */
async function searchCommand(query: string | undefined, options: SearchOptions): Promise<void> {
  const limit = parseLimit(options.limit, '--limit');
  let entries: SearchableTool[];
  if (options.catalog) entries = await loadCatalog(options.catalog);
  else {
    const pool = cliToolPool();
    entries = await searchableTools(pool, pool);
  }
  const index = new ToolSearchIndex(entries);
  if (options.jsonl) {
    if (query !== undefined)
      throw new EfferentError(
        'usage',
        'With --jsonl, queries come from stdin, one JSON object a line; drop the QUERY argument.',
      );
    const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      let reply: unknown;
      try {
        const request = JSON.parse(line) as { query?: unknown; limit?: unknown } | null;
        if (typeof request?.query !== 'string' || request.query.trim() === '')
          throw new Error('each line needs a non-empty string "query".');
        const lineLimit = request.limit === undefined ? limit : parseLimit(request.limit, '"limit"');
        reply = { matches: searchTools(index, request.query, lineLimit).matches };
      } catch (error) {
        reply = {
          error: `Bad query line: ${(error as Error).message.replace(/\.$/, '')}. Send {"query": "...", "limit": 5}.`,
        };
      }
      process.stdout.write(`${JSON.stringify(reply)}\n`);
    }
    return;
  }
  if (query === undefined || query.trim() === '') {
    throw new EfferentError(
      'usage',
      'Give a QUERY (keywords, a tool name, mcp__server or select:A,B), or --jsonl to read queries from stdin.',
    );
  }
  const result = searchTools(index, query, limit);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (result.matches.length === 0) process.stdout.write(`No tool matched "${query}" among ${index.size}.\n`);
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  result.matches.forEach((name, position) => {
    const summary = (byName.get(name)?.description ?? '').split('\n')[0]?.slice(0, 100) ?? '';
    process.stdout.write(`${position + 1}. ${name}${summary ? `  ${summary}` : ''}\n`);
  });
  if (result.unknown.length > 0) process.stdout.write(`Not found: ${result.unknown.join(', ')}.\n`);
}

/** `efferent tools`: prints the pool exactly as the model would see it; `tools search` ranks it. */
export function registerToolsCommand(program: Command): void {
  const tools = program
    .command('tools')
    .description('Print the tool pool exactly as the model would see it.')
    .addOption(
      new Option('--provider <provider>', 'schema dialect')
        .choices(['anthropic', 'openai', 'gemini'])
        .default('anthropic'),
    )
    .option('--json', 'print the provider definitions as JSON')
    .action(async (options: { provider: SchemaProvider; json?: boolean }) => {
      const definitions = await toProviderTools(cliToolPool(), options.provider);
      process.stdout.write(
        options.json ? `${JSON.stringify(definitions, null, 2)}\n` : renderDefinitions(definitions),
      );
    });
  tools
    .command('search')
    .description(
      'Rank tools for a query the way ToolSearch does: the built-in pool, or a catalog of MCP tools/list entries.',
    )
    .argument('[query]', 'keywords (+word = required), a tool name, mcp__server, or select:A,B')
    .option('--catalog <file>', 'a JSON array of {name, description, inputSchema, server?} entries')
    .option('--limit <n>', 'how many matches', '5')
    .option('--json', 'print the result as JSON')
    .option('--jsonl', 'read {"query", "limit"} lines on stdin, write {"matches"} lines')
    // `--json` after `search` is parsed by `tools` (which has the same flag), so both are read.
    .action((query: string | undefined, options: SearchOptions, command: Command) =>
      searchCommand(query, {
        ...options,
        json: options.json === true || command.parent?.opts()['json'] === true,
      }),
    );
}
