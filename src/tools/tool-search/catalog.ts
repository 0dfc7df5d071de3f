import { readFile } from 'node:fs/promises';
import { EfferentError } from '../../core/index.ts';
import type { SearchableTool } from './search-index.ts';

/** A server name as it appears in `mcp__<server>__<tool>` (no `__` inside, provider-safe characters). */
function serverPart(server: string): string {
  return (
    server
      .replace(/[^A-Za-z0-9_-]/g, '_')
      .replace(/_+/g, '_')
      .replace(/^_|_$/g, '') || 'server'
  );
}

/**
 * Reads a catalog: a JSON array of MCP `tools/list` entries `{name, description, inputSchema}`,
 * optionally with `server` (then the name is qualified as `mcp__<server>__<name>`), or an object
 * whose `tools` field is such an array. Bad input is an error that says what to fix.
 */
export function parseCatalog(text: string, source = 'the catalog'): SearchableTool[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EfferentError(
      'usage',
      `${source} is not JSON (${(error as Error).message}); give a JSON array of {name, description, inputSchema} entries.`,
    );
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(list)) {
    throw new EfferentError(
      'usage',
      `${source} must be a JSON array of {name, description, inputSchema} entries (or an object with such a "tools" array).`,
    );
  }
  return list.map((entry, position) => {
    const record = entry as Record<string, unknown> | null;
    if (!record || typeof record['name'] !== 'string' || record['name'] === '') {
      throw new EfferentError(
        'usage',
        `Entry ${position} of ${source} has no "name"; every entry needs a non-empty string name.`,
      );
    }
    const name = record['name'];
    const server =
      typeof record['server'] === 'string' && record['server'] !== '' ? record['server'] : undefined;
    const schema = record['inputSchema'];
    return {
      name: server && !name.startsWith('mcp__') ? `mcp__${serverPart(server)}__${name}` : name,
      description: typeof record['description'] === 'string' ? record['description'] : '',
      server,
      inputSchema: schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : undefined,
    };
  });
}

/** Reads and parses a catalog file. */
export async function loadCatalog(path: string): Promise<SearchableTool[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EfferentError(
      'usage',
      `Cannot read the catalog ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path.`,
    );
  }
  return parseCatalog(text, path);
}
