import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEfferent } from '../cli/run-efferent.ts';

const server = join(import.meta.dirname, 'fixtures', 'env-server.mjs');
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-env-')));
  await mkdir(join(root, 'home', '.efferent'), { recursive: true });
  await mkdir(join(root, 'project'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('settings env reaches MCP servers', () => {
  it('starts a stdio server with the settings env and expands $VAR references from it', {
    timeout: 180_000,
  }, async () => {
    await writeFile(
      join(root, 'home', '.efferent', 'settings.json'),
      JSON.stringify({ env: { FROM_SETTINGS: 'from-settings', PROBE_NAME: 'probe' } }),
    );
    const config = JSON.stringify({
      mcpServers: {
        probe: { command: process.execPath, args: [server], env: { EXPANDED: `\${PROBE_NAME}-x` } },
      },
    });
    const call = (name: string) =>
      runEfferent(
        [
          'call',
          'mcp__probe__env',
          JSON.stringify({ name }),
          '--mcp-config',
          config,
          '--allowedTools',
          'mcp__probe',
        ],
        join(root, 'project'),
        join(root, 'home'),
        { EFFERENT_MANAGED_SETTINGS: join(root, 'none.json') },
      );
    const direct = await call('FROM_SETTINGS');
    expect(direct.stdout + direct.stderr).toContain('FROM_SETTINGS=from-settings');
    expect(direct.code).toBe(0);
    const expanded = await call('EXPANDED');
    expect(expanded.stdout).toContain('EXPANDED=probe-x');
  });
});
