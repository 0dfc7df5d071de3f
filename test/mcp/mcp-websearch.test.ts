import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEfferent } from '../cli/run-efferent.ts';

/** A WebSearch tool from an MCP server asks by default, even when its annotations say it only reads. */

const server = join(import.meta.dirname, 'fixtures', 'limits-server.mjs');
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-websearch-')));
  await mkdir(join(root, 'project'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function call(tool: string, extra: string[]) {
  const config = JSON.stringify({ mcpServers: { limits: { command: process.execPath, args: [server] } } });
  return runEfferent(
    ['call', `mcp__limits__${tool}`, JSON.stringify({ query: 'efferent' }), '--mcp-config', config, ...extra],
    join(root, 'project'),
    root,
    { EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json') },
  );
}

describe('an MCP server WebSearch tool', () => {
  it('asks without a rule and runs with one', { timeout: 120_000 }, async () => {
    const asked = await call('WebSearch', ['--mode', 'plan']);
    expect(asked.stdout).toContain('sends the query off this machine');
    expect(asked.stdout).not.toContain('results for');
    // An allow rule for the tool settles it, in plan mode too (the tool only reads).
    const allowed = await call('WebSearch', ['--mode', 'plan', '--allowedTools', 'mcp__limits__WebSearch']);
    expect(allowed.stdout).toContain('results for efferent');
    expect(allowed.code).toBe(0);
  });

  it('an explicitly allowed read-only MCP tool runs in plan mode; one that may write still asks', {
    timeout: 120_000,
  }, async () => {
    const lookup = await call('lookup', ['--mode', 'plan', '--allowedTools', 'mcp__limits']);
    expect(lookup.stdout).toContain('meaning of efferent');
    // Without a rule the server's read-only hint alone allows nothing.
    const unallowed = await call('lookup', ['--mode', 'default']);
    expect(unallowed.stdout).not.toContain('meaning of');
    const writer = await runEfferent(
      [
        'call',
        'mcp__limits__repeat',
        JSON.stringify({ text: 'x', times: 2 }),
        '--mcp-config',
        JSON.stringify({ mcpServers: { limits: { command: process.execPath, args: [server] } } }),
        '--mode',
        'plan',
        '--allowedTools',
        'mcp__limits',
      ],
      join(root, 'project'),
      root,
      { EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json') },
    );
    expect(writer.stdout).toContain('plan mode');
    expect(writer.stdout).not.toContain('xx');
  });
});
