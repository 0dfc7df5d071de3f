import { createHash } from 'node:crypto';

/** Longest tool name providers accept. */
export const maxToolNameLength = 64;

/**
 * A server name as it appears in `mcp__<server>__<tool>`: characters outside `[A-Za-z0-9_-]` become
 * `_`, and runs of `_` collapse so the name never contains the `__` separator (which would let
 * `mcp__a__b` rules reach into another server).
 */
export function normalizeServerName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return cleaned === '' ? 'server' : cleaned;
}

/** A tool name with characters outside `[A-Za-z0-9_-]` replaced by `_`. */
export function normalizeToolName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned === '' ? 'tool' : cleaned;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Fits a name into 64 characters, keeping it unique with a hash of the full name. */
function fitName(name: string, original: string): string {
  if (name.length <= maxToolNameLength) return name;
  return `${name.slice(0, maxToolNameLength - 9)}_${shortHash(original)}`;
}

/**
 * The names the model sees for one server's tools, in the order given. Deterministic whatever the
 * server's listing order: tools are taken in code-point order of their original names, and a name
 * that is already taken (after normalising or cutting to 64 characters) gets `_2`, `_3`, ….
 */
export function qualifiedToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const prefix = `mcp__${normalizeServerName(server)}__`;
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const tool of [...new Set(tools)].sort()) {
    const base = fitName(`${prefix}${normalizeToolName(tool)}`, `${server}\u0000${tool}`);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, maxToolNameLength - suffix.length)}${suffix}`;
    }
    taken.add(name);
    names.set(tool, name);
  }
  return names;
}
