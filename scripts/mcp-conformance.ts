/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, which needs
 * Node >= 22) against `efferent mcp serve --http`: the server scenarios that apply to a server with
 * no scenario-specific tools. Exits non-zero when any check fails.
 *
 * `npx tsx scripts/mcp-conformance.ts --node PATH/TO/node22 --conformance PATH/TO/conformance/dist/index.js`
 *
 * The suite cannot send efferent's bearer token, so it talks to a loopback port forwarder that adds
 * `Authorization` and maps its own address to the server's in `Host` and `Origin` (as if the suite
 * had connected directly); any other Host or Origin passes through unchanged, so the DNS-rebinding
 * scenario still meets efferent's own checks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const scenarios = ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'dns-rebinding-protection'];

function option(name: string): string {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (!value) {
    process.stderr.write(`mcp-conformance: ${name} PATH is required.\n`);
    process.exit(2);
  }
  return value;
}

async function startEfferent(cwd: string, token: string): Promise<{ child: ChildProcess; port: number }> {
  const bin = resolve(import.meta.dirname, '..', 'bin', 'efferent.js');
  const child = spawn(
    process.execPath,
    [bin, 'mcp', 'serve', '--http', '--port', '0', '--token', token, '--cwd', cwd, '--tools', 'Read,Grep,Glob'],
    { cwd, env: { ...process.env, HOME: cwd }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const port = await new Promise<number>((found, failed) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /efferent MCP server on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) found(Number(match[1]));
    });
    child.on('exit', () => failed(new Error(`efferent mcp serve exited: ${stderr}`)));
  });
  return { child, port };
}

/** Forwards to the server, adding the token and mapping this forwarder's own address to the server's. */
async function startForwarder(target: number, token: string) {
  let own = 0;
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${token}` };
    const map = (value: string | undefined) =>
      value?.replace(new RegExp(`^(http://)?(127\\.0\\.0\\.1|localhost):${own}$`), `$1$2:${target}`);
    if (headers.host) headers.host = map(headers.host) ?? headers.host;
    if (typeof headers.origin === 'string') headers.origin = map(headers.origin) ?? headers.origin;
    const upstream = request(
      { host: '127.0.0.1', port: target, path: incoming.url, method: incoming.method, headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  own = (server.address() as AddressInfo).port;
  return { server, port: own };
}

function runScenario(node: string, conformance: string, url: string, scenario: string): Promise<number> {
  return new Promise((done) => {
    const child = spawn(node, [conformance, 'server', '--url', url, '--scenario', scenario], {
      stdio: 'inherit',
    });
    child.on('exit', (code) => done(code ?? 1));
  });
}

const node = option('--node');
const conformance = option('--conformance');
const cwd = mkdtempSync(join(tmpdir(), 'efferent-conformance-'));
const token = randomBytes(24).toString('base64url');
const { child, port } = await startEfferent(cwd, token);
const forwarder = await startForwarder(port, token);
const failed: string[] = [];
try {
  for (const scenario of scenarios) {
    const code = await runScenario(node, conformance, `http://localhost:${forwarder.port}/mcp`, scenario);
    if (code !== 0) failed.push(scenario);
  }
} finally {
  forwarder.server.closeAllConnections();
  forwarder.server.close();
  child.kill('SIGTERM');
  rmSync(cwd, { recursive: true, force: true });
}
process.stdout.write(
  failed.length === 0
    ? `mcp-conformance: ${scenarios.length} scenarios passed (${scenarios.join(', ')}).\n`
    : `mcp-conformance: failed: ${failed.join(', ')}.\n`,
);
process.exit(failed.length === 0 ? 0 : 1);
