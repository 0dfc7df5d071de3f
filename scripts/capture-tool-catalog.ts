/**
 * Captures the `tools/list` output of published MCP servers into a catalog for ToolSearch's
 * evaluation (bench/data/mcp-tool-catalog.json). Each package must already be installed under
 * `<root>/pk/<name with / and @ as _>/node_modules`; each server is started over stdio with the
 * official SDK client, with dummy credentials where it refuses to start without them.
 *
 * `npx tsx scripts/capture-tool-catalog.ts <root> <out.json>`, then `npx biome format --write bench/data`.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';

interface ServerSpec {
  package: string;
  /** The server name tools are qualified with (`mcp__<server>__<tool>`). */
  server: string;
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
}

const scratch = mkdtempSync(join(tmpdir(), 'efferent-capture-'));
const dummy = 'dummy-token-for-listing-tools';
writeFileSync(
  join(scratch, 'gcp-oauth.keys.json'),
  JSON.stringify({ installed: { client_id: dummy, client_secret: dummy, redirect_uris: ['http://127.0.0.1:1'] } }),
);
writeFileSync(join(scratch, 'gmail-credentials.json'), JSON.stringify({ access_token: dummy, refresh_token: dummy }));
const specs: ServerSpec[] = [
  { package: '@modelcontextprotocol/server-everything', server: 'everything', args: ['stdio'] },
  { package: '@modelcontextprotocol/server-filesystem', server: 'filesystem', args: [scratch] },
  { package: '@modelcontextprotocol/server-memory', server: 'memory', env: { MEMORY_FILE_PATH: join(scratch, 'm.jsonl') } },
  { package: '@modelcontextprotocol/server-github', server: 'github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: dummy } },
  { package: '@modelcontextprotocol/server-gitlab', server: 'gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: dummy } },
  { package: '@modelcontextprotocol/server-slack', server: 'slack', env: { SLACK_BOT_TOKEN: dummy, SLACK_TEAM_ID: 'T000' } },
  { package: '@modelcontextprotocol/server-google-maps', server: 'google-maps', env: { GOOGLE_MAPS_API_KEY: dummy } },
  { package: '@modelcontextprotocol/server-brave-search', server: 'brave-search', env: { BRAVE_API_KEY: dummy } },
  { package: '@modelcontextprotocol/server-postgres', server: 'postgres', args: ['postgresql://127.0.0.1:1/none'] },
  { package: '@modelcontextprotocol/server-redis', server: 'redis', args: ['redis://127.0.0.1:1'] },
  { package: '@modelcontextprotocol/server-sequential-thinking', server: 'sequential-thinking' },
  { package: '@modelcontextprotocol/server-puppeteer', server: 'puppeteer' },
  { package: '@modelcontextprotocol/server-aws-kb-retrieval', server: 'aws-kb', env: { AWS_ACCESS_KEY_ID: dummy, AWS_SECRET_ACCESS_KEY: dummy, AWS_REGION: 'us-east-1' } },
  { package: '@modelcontextprotocol/server-everart', server: 'everart', env: { EVERART_API_KEY: dummy } },
  { package: '@notionhq/notion-mcp-server', server: 'notion', env: { NOTION_TOKEN: dummy } },
  { package: '@playwright/mcp', server: 'playwright' },
  { package: 'mcp-server-kubernetes', server: 'kubernetes' },
  { package: '@wonderwhy-er/desktop-commander', server: 'desktop-commander' },
  { package: 'firecrawl-mcp', server: 'firecrawl', env: { FIRECRAWL_API_KEY: 'fc-dummy' } },
  { package: '@upstash/context7-mcp', server: 'context7' },
  { package: 'tavily-mcp', server: 'tavily', env: { TAVILY_API_KEY: 'tvly-dummy' } },
  { package: 'exa-mcp-server', server: 'exa', env: { EXA_API_KEY: dummy } },
  { package: '@azure-devops/mcp', server: 'azure-devops', args: ['dummy-org'] },
  { package: '@circleci/mcp-server-circleci', server: 'circleci', env: { CIRCLECI_TOKEN: dummy } },
  { package: '@heroku/mcp-server', server: 'heroku', env: { HEROKU_API_KEY: dummy } },
  { package: '@benborla29/mcp-server-mysql', server: 'mysql', env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '1', MYSQL_USER: 'x', MYSQL_PASS: 'x', MYSQL_DB: 'x' } },
  { package: '@cyanheads/git-mcp-server', server: 'git' },
  { package: '@kazuph/mcp-taskmanager', server: 'taskmanager', env: { TASK_MANAGER_FILE_PATH: join(scratch, 't.json') } },
  { package: '@supabase/mcp-server-supabase', server: 'supabase', args: ['--access-token', dummy] },
  { package: '@neondatabase/mcp-server-neon', server: 'neon', args: ['start', dummy] },
  { package: 'mongodb-mcp-server', server: 'mongodb' },
  { package: '@sentry/mcp-server', server: 'sentry', args: ['--access-token', dummy] },
  { package: '@elastic/mcp-server-elasticsearch', server: 'elasticsearch', env: { ES_URL: 'http://127.0.0.1:1', ES_API_KEY: dummy } },
  { package: '@hubspot/mcp-server', server: 'hubspot', env: { PRIVATE_APP_ACCESS_TOKEN: dummy } },
  {
    package: '@gongrzhe/server-gmail-autoauth-mcp',
    server: 'gmail',
    env: {
      GMAIL_OAUTH_PATH: join(scratch, 'gcp-oauth.keys.json'),
      GMAIL_CREDENTIALS_PATH: join(scratch, 'gmail-credentials.json'),
    },
  },
  { package: '@mapbox/mcp-server', server: 'mapbox', env: { MAPBOX_ACCESS_TOKEN: 'pk.dummy' } },
];

const [root = '/tmp/ts-mcp', out = 'bench/data/mcp-tool-catalog.json'] = process.argv.slice(2);
const only = process.env['ONLY']?.split(',');

function binOf(spec: ServerSpec): { dir: string; script: string; version: string } | undefined {
  const dir = join(root, 'pk', spec.package.replace(/[/@]/g, '_'));
  const pkgDir = join(dir, 'node_modules', spec.package);
  if (!existsSync(join(pkgDir, 'package.json'))) return undefined;
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
    main?: string;
  };
  const bin =
    spec.bin ??
    (typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0]) ??
    manifest.main;
  if (!bin) return undefined;
  return { dir: pkgDir, script: join(pkgDir, bin), version: manifest.version };
}

interface CatalogTool {
  server: string;
  name: string;
  description: string;
  inputSchema: unknown;
}

const catalog: { servers: Array<{ server: string; package: string; version: string; tools: number }>; tools: CatalogTool[] } =
  existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : { servers: [], tools: [] };

for (const spec of specs) {
  if (only && !only.includes(spec.server)) continue;
  if (!only && catalog.servers.some((entry) => entry.server === spec.server)) continue;
  const found = binOf(spec);
  if (!found) {
    process.stderr.write(`skip ${spec.package}: not installed\n`);
    continue;
  }
  const client = new Client({ name: 'efferent-catalog', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [found.script, ...(spec.args ?? [])],
    env: { ...getDefaultEnvironment(), HOME: scratch, ...spec.env },
    cwd: scratch,
    stderr: 'ignore',
  });
  try {
    await Promise.race([
      client.connect(transport),
      new Promise((_, reject) => setTimeout(() => reject(new Error('connect timed out')), 20_000)),
    ]);
    // Read loosely: some published servers send schemas the SDK's own listTools rejects.
    const listed = (await client.request(
      { method: 'tools/list', params: {} },
      z.object({ tools: z.array(z.looseObject({ name: z.string() })) }),
      { timeout: 20_000 },
    )) as { tools: Array<{ name: string; description?: string; inputSchema?: unknown }> };
    const tools = listed.tools.map((tool) => ({
      server: spec.server,
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
    }));
    catalog.servers = catalog.servers.filter((entry) => entry.server !== spec.server);
    catalog.tools = catalog.tools.filter((entry) => entry.server !== spec.server);
    catalog.servers.push({ server: spec.server, package: spec.package, version: found.version, tools: tools.length });
    catalog.tools.push(...tools);
    process.stderr.write(`${spec.server} (${spec.package}@${found.version}): ${tools.length} tools\n`);
  } catch (error) {
    process.stderr.write(`fail ${spec.package}: ${(error as Error).message}\n`);
  } finally {
    await client.close().catch(() => {});
  }
}
catalog.servers.sort((left, right) => (left.server < right.server ? -1 : 1));
writeFileSync(out, `${JSON.stringify(catalog, null, 1)}\n`);
process.stderr.write(`${catalog.tools.length} tools from ${catalog.servers.length} servers\n`);
process.exit(0);
