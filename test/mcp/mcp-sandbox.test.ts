import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolUseContext } from '../../src/core/index.ts';
import { loadMcpConfiguration, McpManager } from '../../src/mcp/index.ts';
import { probeSandbox } from '../../src/sandbox/sandbox.ts';

const escapeServer = join(import.meta.dirname, 'fixtures', 'escape-server.mjs');
const tmpPackageServer = join(import.meta.dirname, 'fixtures', 'tmp-package-server.js');
const escapeTools = join(import.meta.dirname, 'fixtures', 'escape-tools.js');
const availability = probeSandbox();
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

  it('writes inside its folder and nowhere else, and reaches only its own allowlist', async () => {
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
    // The same server (one start for both) reaches only its own allowlist through the proxy.
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

/**
 * A server installed under the host's /tmp, which the sandbox replaces with a private one: its
 * package (script, manifest, node_modules) and its working folder are bound in read-only, and
 * nothing else of the host's /tmp is. The package root is found from the script, so the same holds
 * for a checkout of efferent under /tmp running the servers above.
 */
describe.skipIf(!availability.available)(`an MCP server installed under /tmp${skipReason}`, () => {
  let root: string;
  const managers: McpManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
    await rm(root, { recursive: true, force: true });
  });

  /** /tmp/…/app: package.json, server.js, node_modules/escape-tools, data/ (its cwd), .env (denied). */
  async function install(sandbox: unknown) {
    root = await realpath(await mkdtemp('/tmp/efferent-mcp-tmp-package-'));
    const app = join(root, 'app');
    const tools = join(app, 'node_modules', 'escape-tools');
    await mkdir(tools, { recursive: true });
    await mkdir(join(app, 'data'));
    await mkdir(join(root, 'home'));
    await writeFile(join(app, 'package.json'), '{ "name": "app", "type": "module" }\n');
    await copyFile(tmpPackageServer, join(app, 'server.js'));
    await writeFile(
      join(tools, 'package.json'),
      '{ "name": "escape-tools", "type": "module", "main": "index.js" }\n',
    );
    await copyFile(escapeTools, join(tools, 'index.js'));
    await writeFile(join(app, '.env'), 'TOKEN=secret-in-package\n');
    await writeFile(join(root, 'neighbour.txt'), 'another program under /tmp\n');
    const entry = {
      command: 'node',
      args: ['../server.js'],
      cwd: join(app, 'data'),
      ...(sandbox ? { sandbox } : {}),
    };
    const configuration = await loadMcpConfiguration({
      projectRoot: app,
      home: join(root, 'home'),
      trusted: true,
      strict: true,
      cliConfigs: [JSON.stringify({ mcpServers: { pkg: entry } })],
    });
    const manager = new McpManager(configuration.servers);
    managers.push(manager);
    await manager.start();
    const call = async (name: string, path: string) => {
      const tool = manager.tools.find((candidate) => candidate.name === `mcp__pkg__${name}`);
      if (!tool) throw new Error(`the server did not start: ${manager.failures.join(' ')}`);
      const result = await tool.call(
        { path },
        createToolUseContext({ cwd: app, sessionDir: join(root, 'session') }),
        async () => ({ behavior: 'allow', trace: [] }),
        () => {},
        'toolu_x',
      );
      return JSON.stringify(result.data);
    };
    return { app, call };
  }

  it('starts from its package, writes only its folder, and reads neither denied files nor the rest of /tmp', async () => {
    const { app, call } = await install({ denyRead: ['.env'] });
    expect(await call('read', join(app, 'package.json'))).toContain('read { \\"name\\": \\"app\\"');
    expect(await call('write', join(app, 'data', 'ok.txt'))).toContain('wrote');
    expect(await readFile(join(app, 'data', 'ok.txt'), 'utf8')).toBe('escaped\n');
    // Escape attempts: its own code, its package, the host's /tmp beside it, a denied file.
    expect(await call('write', join(app, 'server.js'))).toContain('refused EROFS');
    expect(await call('write', join(app, 'node_modules', 'escape-tools', 'index.js'))).toContain(
      'refused EROFS',
    );
    await call('write', join(root, 'escaped.txt'));
    expect(existsSync(join(root, 'escaped.txt'))).toBe(false);
    expect(await call('read', join(root, 'neighbour.txt'))).toContain('refused ENOENT');
    expect(await call('read', join(app, '.env'))).toContain('refused EACCES');
    expect(await readFile(join(app, 'server.js'), 'utf8')).toContain('dependency-free MCP stdio server');
  });

  it('the same server outside the sandbox reads and writes all of it (so the test above can fail)', async () => {
    const { app, call } = await install(undefined);
    expect(await call('read', join(app, '.env'))).toContain('secret-in-package');
    expect(await call('read', join(root, 'neighbour.txt'))).toContain('another program');
    await call('write', join(root, 'escaped.txt'));
    expect(existsSync(join(root, 'escaped.txt'))).toBe(true);
  });
});
