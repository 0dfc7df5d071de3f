/**
 * What deferral saves: the tool part of the base prompt for 40 built-ins + 300 MCP tools, fully
 * loaded against deferred (names announced in a system reminder, ToolSearch loaded), per provider.
 * The MCP tools are the real ones in bench/data/mcp-tool-catalog.json (the first 300); the built-ins
 * are efferent's own (every feature flag on) plus ToolSearch, topped up to 40 with copies of them
 * under other names, so the built-in share has realistic sizes. Tokens are estimated at 2.5
 * characters per token, the same estimate auto mode uses (the ratio does not depend on it).
 * `npx tsx bench/tool-search-prompt.ts [--json]`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type AnyTool, buildTool, chooseDeferredTools, DeferredTools } from '../src/core/index.ts';
import {
  assembleToolPool,
  getAllBaseTools,
  type SchemaProvider,
  toRequestTools,
  ToolSearchTool,
} from '../src/registry/index.ts';
import { parseCatalog } from '../src/tools/tool-search/index.ts';

const json = process.argv.includes('--json');
const catalog = parseCatalog(
  readFileSync(join(import.meta.dirname, 'data', 'mcp-tool-catalog.json'), 'utf8'),
);
if (catalog.length < 300) throw new Error(`The catalog has ${catalog.length} tools; this bench needs 300.`);

const mcpTools: AnyTool[] = catalog.slice(0, 300).map((entry) =>
  buildTool({
    name: entry.name,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJSONSchema: entry.inputSchema ?? { type: 'object', properties: {} },
    prompt: entry.description || entry.name,
    mcpInfo: { serverName: entry.server ?? 'server', toolName: entry.name.split('__').at(-1) ?? entry.name },
    call: async () => ({ data: '' }),
  }),
);
const own = [...getAllBaseTools({ powershell: true, repl: true, todoWrite: true }), ToolSearchTool];
const builtIns: AnyTool[] = [...own];
for (let copy = 2; builtIns.length < 40; copy += 1)
  for (const tool of own) if (builtIns.length < 40) builtIns.push({ ...tool, name: `${tool.name}${copy}` });

const pool = assembleToolPool({ builtIns, mcpTools });
const state = new DeferredTools();
state.setDeferred(await chooseDeferredTools(pool, { mode: { kind: 'always' } }));
const reminder = state.takeAnnouncement() ?? '';
const tokens = (text: string) => Math.ceil(text.length / 2.5);

const rows: Array<{ provider: SchemaProvider; loaded: number; deferred: number; ratio: number }> = [];
for (const provider of ['anthropic', 'openai', 'gemini'] as const) {
  const full = await toRequestTools(pool, provider);
  const deferredRequest = await toRequestTools(pool, provider, state.requestDeferral());
  // Anthropic keeps defer_loading definitions out of the model's context until a tool_reference loads them.
  const inContext = deferredRequest.filter(
    (definition) => !('defer_loading' in definition && definition.defer_loading),
  );
  const loaded = tokens(JSON.stringify(full));
  const deferred = tokens(JSON.stringify(inContext)) + tokens(reminder);
  rows.push({ provider, loaded, deferred, ratio: deferred / loaded });
}

const summary = {
  builtIns: builtIns.length,
  mcpTools: mcpTools.length,
  deferredTools: state.deferred.size,
  rows,
};
if (json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else {
  process.stdout.write(
    `${builtIns.length} built-ins + ${mcpTools.length} MCP tools; ${state.deferred.size} deferred (estimated tokens, 2.5 chars/token)\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `  ${row.provider.padEnd(10)} all loaded ${String(row.loaded).padStart(7)}   deferred ${String(row.deferred).padStart(6)}   ${(row.ratio * 100).toFixed(1)}%\n`,
    );
  }
}
