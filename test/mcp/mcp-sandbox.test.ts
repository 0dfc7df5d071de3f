import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../src/core/index.ts';
import { loadMcpConfiguration, McpManager } from '../../src/mcp/index.ts';
import { isInsideDirectory } from '../../src/permissions/paths/canonical-path.ts';
import { probeSandbox } from '../../src/sandbox/sandbox.ts';

const escapeServer = join(import.meta.dirname, 'fixtures', 'escape-server.mjs');
const probed = probeSandbox();
// The sandbox gives each server a private /tmp: a checkout under the host's /tmp (the server's
// script and the SDK it imports) is not visible inside, so the server could not start there.
const availability = isInsideDirectory(escapeServer, '/tmp')
  ? { available: false, reason: 'this checkout lives under /tmp, which the sandbox hides from servers' }
  : probed;
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

/**
 * A stdio server with `sandbox` in its configuration runs in the same sandbox as Bash: it writes
 * only its own folder and reaches only its own allowlist. The same server without it escapes,
 * which shows the test would notice.
 */
describe.skipIf(!availability.available)(`MCP stdio servers in the sandbox${skipReason}`, () => {
  let root: string;
  let http: Server;
  let port = 0;
  const managers: McpManager[] = [];
  beforeAll(async () => {
    http = createServer((request, response) => response.end(`hello ${request.headers.host}`));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as { port: number }).port;
  });
  afterAll(() => http.close());
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
    await rm(root, { recursive: true, force: true });
  });

  async function start(sandbox: unknown) {
    root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-sandbox-')));
    const folder = join(root, 'server');
    await mkdir(folder);
    await mkdir(join(root, 'home'));
    const entry = {
      command: process.execPath,
      args: [escapeServer],
      cwd: folder,
      ...(sandbox ? { sandbox } : {}),
    };
    const configuration = await loadMcpConfiguration({
      projectRoot: root,
      home: join(root, 'home'),
      trusted: true,
      strict: true,
      cliConfigs: [JSON.stringify({ mcpServers: { escape: entry } })],
    });
    const manager = new McpManager(configuration.servers, {
      sandboxHostOverrides: { 'allowed.test': '127.0.0.1', 'other.test': '127.0.0.1' },
    });
    managers.push(manager);
    await manager.start();
    const call = async (name: string, input: Record<string, unknown>) => {
      const tool = manager.tools.find((candidate) => candidate.name === `mcp__escape__${name}`);
      if (!tool) throw new Error(`no tool ${name}: ${JSON.stringify(manager.tools.map((t) => t.name))}`);
      const result = await tool.call(
        input,
        createToolUseContext({ cwd: root, sessionDir: join(root, 'session') }),
        async () => ({ behavior: 'allow', trace: [] }),
        () => {},
        'toolu_x',
      );
      return JSON.stringify(result.data);
    };
    return { folder, call };
  }

  it('writes inside its folder, and nowhere else', async () => {
    const { folder, call } = await start({ allowedDomains: ['allowed.test'] });
    expect(await call('write', { path: join(folder, 'ok.txt') })).toContain('wrote');
    expect(existsSync(join(folder, 'ok.txt'))).toBe(true);
    for (const outside of [
      join(root, 'escaped.txt'),
      join(root, 'home', '.bashrc'),
      join(tmpdir(), `efferent-escape-${process.pid}`),
    ]) {
      await call('write', { path: outside });
      expect(existsSync(outside), outside).toBe(false);
    }
    // Under /tmp it writes its own private /tmp, which the host never sees; elsewhere the file
    // system is read-only to it (not tried here: tests write only in temp folders).
  });

  it('reaches only its own allowlist through the proxy', async () => {
    const { call } = await start({ allowedDomains: ['allowed.test'] });
    expect(await call('fetch', { url: `http://allowed.test:${port}/` })).toContain(
      `200 hello allowed.test:${port}`,
    );
    expect(await call('fetch', { url: `http://other.test:${port}/` })).toContain(
      `403 efferent sandbox: network access to other.test:${port} was blocked (it is not in sandbox.network.allowedDomains)`,
    );
  });

  it('with sandbox: true it has no network at all', async () => {
    const { call } = await start(true);
    expect(await call('fetch', { url: `http://127.0.0.1:${port}/` })).toMatch(
      /error E(CONNREFUSED|NETUNREACH)/,
    );
  });

  it('the same server without sandbox escapes (so the tests above can fail)', async () => {
    const { call } = await start(undefined);
    await call('write', { path: join(root, 'escaped.txt') });
    expect(existsSync(join(root, 'escaped.txt'))).toBe(true);
  });
});
