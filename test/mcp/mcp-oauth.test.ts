import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginToMcpServer, McpManager } from '../../src/mcp/index.ts';
import { runEfferent } from '../cli/run-efferent.ts';
import { type OAuthMcpServer, startOAuthMcpServer } from './fixtures/oauth-mcp-server.ts';

const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'efferent.js');
let root: string;
let project: string;
let home: string;
let configDir: string;
let server: OAuthMcpServer;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-oauth-')));
  project = join(root, 'project');
  home = join(root, 'home');
  configDir = join(root, 'config');
  await mkdir(project, { recursive: true });
  await mkdir(join(home, '.efferent'), { recursive: true });
  server = await startOAuthMcpServer();
  await writeFile(
    join(home, '.efferent', 'settings.json'),
    JSON.stringify({ mcpServers: { secure: { type: 'http', url: server.url } } }),
  );
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const env = () => ({ EFFERENT_CONFIG_DIR: configDir });

/** Runs `efferent mcp login secure` and plays the browser: opens the printed URL, follows the redirect home. */
async function login(): Promise<{ code: number | null; stdout: string; callbackStatus: number }> {
  const child = spawn(process.execPath, [bin, 'mcp', 'login', 'secure'], {
    cwd: project,
    env: { PATH: process.env['PATH'], HOME: home, NO_COLOR: '1', ...env() },
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const authorizationUrl = await new Promise<string>((found, failed) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr);
      if (match?.[1]) found(match[1]);
    });
    child.on('close', () => failed(new Error(`login exited before printing a URL: ${stderr}`)));
  });
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const callback = authorize.headers.get('location') ?? '';
  expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
  const back = await fetch(callback);
  await back.text();
  const code = await new Promise<number | null>((done) => {
    if (child.exitCode !== null) done(child.exitCode);
    else child.on('close', (exit) => done(exit));
  });
  return { code, stdout, callbackStatus: back.status };
}

describe('OAuth for HTTP MCP servers', () => {
  it('headless asks for `efferent mcp login`; the login stores tokens 0600; calls use them and refresh them', async () => {
    const before = await runEfferent(['mcp', 'list'], project, home, env());
    expect(before.stdout).toMatch(
      /^secure {2}\[user\] {2}http: .* failed: server secure needs authorization: run `efferent mcp login secure`$/m,
    );
    // Nobody could have authorized a client, so none was registered.
    expect(server.provider.clients.size).toBe(0);

    const loggedIn = await login();
    expect(loggedIn.callbackStatus).toBe(200);
    expect(loggedIn.code).toBe(0);
    expect(loggedIn.stdout).toContain('Authorized with MCP server "secure"');
    expect(server.provider.clients.size).toBe(1);
    expect(server.provider.grants).toEqual(['authorization_code']);

    const storeDir = join(configDir, 'mcp-auth');
    expect((await stat(storeDir)).mode & 0o777).toBe(0o700);
    const files = await readdir(storeDir);
    expect(files).toHaveLength(1);
    const file = join(storeDir, files[0] as string);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    const clientId = [...server.provider.clients.keys()][0];
    expect(stored.client.client_id).toBe(clientId);
    expect(stored.tokens.refresh_token).toEqual(expect.any(String));

    const call = (await import('../cli/run-efferent.ts')).runEfferent;
    const first = await call(
      ['call', 'mcp__secure__whoami', '{}', '--allowedTools', 'mcp__secure'],
      project,
      home,
      env(),
    );
    expect(first.stderr).not.toContain('needs authorization');
    expect(first.stdout).toContain(`client ${clientId}`);

    // The access token stops working: the next run refreshes it with the stored refresh token.
    server.provider.expireAccessTokens();
    const second = await call(
      ['call', 'mcp__secure__whoami', '{}', '--allowedTools', 'mcp__secure'],
      project,
      home,
      env(),
    );
    expect(second.stdout).toContain(`client ${clientId}`);
    expect(server.provider.grants).toEqual(['authorization_code', 'refresh_token']);
    const refreshed = JSON.parse(await readFile(file, 'utf8'));
    expect(refreshed.tokens.access_token).not.toBe(stored.tokens.access_token);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(storeDir)).toHaveLength(1);
  }, 120_000);

  it('a login for a stdio server, or an unknown name, is refused with what to do', async () => {
    const result = await runEfferent(
      [
        'mcp',
        'login',
        'local',
        '--mcp-config',
        JSON.stringify({ mcpServers: { local: { command: 'true' } } }),
      ],
      project,
      home,
      env(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/runs over stdio; only HTTP and SSE servers use OAuth/);
    const unknown = await runEfferent(['mcp', 'login', 'nope'], project, home, env());
    expect(unknown.stderr).toMatch(/No MCP server named "nope" is configured\. Configured: secure\./);
  }, 60_000);

  it('a session that may ask the user runs the login for a server that needs it, then uses its tools', async () => {
    const storeDir = join(configDir, 'mcp-auth');
    const manager = new McpManager(
      [
        {
          name: 'secure',
          scope: 'user',
          origin: 'test',
          status: 'enabled',
          config: { type: 'http', url: server.url, headers: {} },
        },
      ],
      { oauthStoreDir: storeDir },
    );
    try {
      await manager.start();
      expect(manager.connections[0]?.needsAuthorization).toBe(true);
      expect(manager.failures).toEqual([
        'MCP server secure needs authorization: run `efferent mcp login secure`; its tools are not available until then.',
      ]);
      const shown: string[] = [];
      await manager.authorizePending((connection) =>
        loginToMcpServer({
          serverName: connection.name,
          serverUrl: server.url,
          storeDir,
          onAuthorizationUrl: (url) => {
            shown.push(url.href);
            // The user's browser: approve, then follow the redirect back to efferent's loopback listener.
            void fetch(url, { redirect: 'manual' }).then((response) =>
              fetch(response.headers.get('location') ?? ''),
            );
          },
        }),
      );
      expect(shown).toHaveLength(1);
      expect(new URL(shown[0] as string).searchParams.get('code_challenge_method')).toBe('S256');
      expect(manager.failures).toEqual([]);
      expect(manager.mcpTools.map((tool) => tool.name)).toEqual(['mcp__secure__whoami']);
      const result = await manager.connections[0]?.callTool('whoami', {});
      expect(JSON.stringify(result?.content)).toContain(`client ${[...server.provider.clients.keys()][0]}`);
    } finally {
      await manager.dispose();
    }
  }, 60_000);
});
