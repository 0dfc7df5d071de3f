import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxConfigurationKey } from '../../sandbox/config.ts';
import { probeSandbox } from '../../sandbox/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

/** A Python client that speaks SOCKS5 to the relay by hand, sends a line and prints the answer. */
const socksClient = `
import socket, struct, sys
host, port = sys.argv[1], int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", 1080))
s.sendall(b"\\x05\\x01\\x00"); assert s.recv(2) == b"\\x05\\x00"
s.sendall(b"\\x05\\x01\\x00\\x03" + bytes([len(host)]) + host.encode() + struct.pack(">H", port))
reply = s.recv(10)
if reply[1] != 0: print("socks refused", reply[1]); sys.exit(3)
s.sendall(b"ping over socks\\n"); print(s.recv(100).decode().strip())
`;

const bigDownloadBytes = 24 * 1024 * 1024;

describe.skipIf(!availability.available)(`Sandboxed network through the proxies${skipReason}`, () => {
  let http: HttpServer;
  let tcp: TcpServer;
  let httpPort = 0;
  let tcpPort = 0;
  const requests: string[] = [];
  beforeAll(async () => {
    http = createHttpServer((request, response) => {
      requests.push(`${request.headers.host} ${request.url}`);
      if (request.url === '/big') {
        response.setHeader('content-length', String(bigDownloadBytes));
        return void response.end(Buffer.alloc(bigDownloadBytes, 'z'));
      }
      response.end(`hello from ${request.headers.host}\n`);
    });
    tcp = createTcpServer((socket) => socket.on('data', (data) => socket.end(`echo: ${data}`)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    httpPort = (http.address() as { port: number }).port;
    tcpPort = (tcp.address() as { port: number }).port;
  });
  afterAll(() => {
    http.close();
    tcp.close();
  });
  const projects: ShellProject[] = [];
  afterEach(async () => {
    for (const project of projects.splice(0)) await project.cleanup();
  });
  // Both names lead to the loopback servers, but only because the test says so.
  const bash = createBashTool({
    sandbox: 'required',
    sandboxNetwork: {
      network: {
        allowedDomains: ['allowed.test', '*.allowed.test'],
        deniedDomains: ['blocked.allowed.test'],
        hostOverrides: {
          'allowed.test': '127.0.0.1',
          'denied.test': '127.0.0.1',
          'blocked.allowed.test': '127.0.0.1',
        },
      },
    },
  });
  const run = async (command: string, project = makeShellProject()) => {
    projects.push(project);
    return (await callTool<ShellOutput>(bash, { command, timeout: 60_000 }, project.context)).result.data;
  };

  it('reaches an allowed name over HTTP and TCP (HTTP CONNECT and SOCKS5), and nothing else', async () => {
    const output = await run(
      [
        `curl -sS http://allowed.test:${httpPort}/plain`,
        `curl -sS -p http://allowed.test:${httpPort}/tunnel`,
        `curl -sS --socks5-hostname 127.0.0.1:1080 http://allowed.test:${httpPort}/socks`,
        `python3 -c '${socksClient}' allowed.test ${tcpPort}`,
        // The host's loopback is not the sandbox's: direct connections go nowhere.
        `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${httpPort}/direct || echo direct-failed`,
      ].join('; '),
    );
    expect(output.stdout).toBe(
      [
        `hello from allowed.test:${httpPort}`,
        `hello from allowed.test:${httpPort}`,
        `hello from allowed.test:${httpPort}`,
        'echo: ping over socks',
        'direct-failed',
        '',
      ].join('\n'),
    );
    expect(requests).not.toContain(`127.0.0.1:${httpPort} /direct`);
    expect(output.notes ?? []).toEqual([]);
  });

  it('a blocked connection says so in the output and in the result, for every way of asking', async () => {
    const output = await run(
      [
        `curl -sS http://denied.test:${httpPort}/a`,
        `curl -sS -p http://denied.test:${httpPort}/b`,
        `python3 -c '${socksClient}' denied.test ${tcpPort}`,
        `curl -sS http://blocked.allowed.test:${httpPort}/c`,
        'true',
      ].join('; '),
    );
    const notAllowed = `efferent sandbox: network access to denied.test:${httpPort} was blocked (it is not in sandbox.network.allowedDomains); allow it by adding "denied.test" to sandbox.network.allowedDomains in settings (ask the user), or do without it.`;
    expect(output.stderr).toContain(notAllowed);
    expect(output.stdout).toContain(notAllowed);
    expect(output.stdout).toContain('socks refused 2');
    expect(output.notes).toEqual([
      notAllowed,
      `efferent sandbox: network access to denied.test:${tcpPort} was blocked (it is not in sandbox.network.allowedDomains); allow it by adding "denied.test" to sandbox.network.allowedDomains in settings (ask the user), or do without it.`,
      `efferent sandbox: network access to blocked.allowed.test:${httpPort} was blocked (it matches "blocked.allowed.test" in sandbox.network.deniedDomains); do not retry it; ask the user if it is needed.`,
    ]);
    expect(requests.some((line) => line.includes('denied.test') || line.includes('blocked.allowed'))).toBe(
      false,
    );
  });

  it('refuses allowed names that resolve to private or loopback addresses, and raw private IPs', async () => {
    const tool = createBashTool({
      sandbox: 'required',
      sandboxNetwork: {
        network: { allowedDomains: ['localhost', 'rebind.test', '127.0.0.1'] },
        resolve: async () => ['127.0.0.1', '::1'],
      },
    });
    const project = makeShellProject();
    projects.push(project);
    const { result } = await callTool<ShellOutput>(
      tool,
      {
        command: `curl -sS http://rebind.test:${httpPort}/r; curl -sS http://127.0.0.1:${httpPort}/ip --noproxy ''; true`,
      },
      project.context,
    );
    expect(result.data.notes).toEqual([
      `efferent sandbox: network access to rebind.test:${httpPort} was blocked (it resolves to a private, loopback or link-local address (127.0.0.1, ::1)); do not retry it; ask the user if it is needed.`,
      `efferent sandbox: network access to 127.0.0.1:${httpPort} was blocked (it resolves to a private, loopback or link-local address (127.0.0.1)); do not retry it; ask the user if it is needed.`,
    ]);
  });

  it('sets the proxy variables tools read, keeps Unix sockets refused, and keeps the exit status', async () => {
    const output = await run(
      [
        'echo "$HTTP_PROXY $https_proxy $ALL_PROXY $NO_PROXY $npm_config_proxy $PIP_PROXY"',
        'test -z "$NODE_CHANNEL_FD" && echo no-channel-variable',
        `python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1`,
        'exit 7',
      ].join('; '),
    );
    expect(output.stdout.split('\n').slice(0, 3)).toEqual([
      'http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 localhost,127.0.0.1,::1 http://127.0.0.1:3128 http://127.0.0.1:3128',
      'no-channel-variable',
      'PermissionError: [Errno 1] Operation not permitted',
    ]);
    expect(output.exitCode).toBe(7);
  });

  it('large downloads arrive whole through the relay and the proxy, however slowly they are read', async () => {
    // A slow reader keeps data waiting in the relay and the proxy when the server closes.
    const download = (flags: string, path: string) =>
      `curl -sS ${flags} -o /dev/null -w '%{size_download}\\n' http://allowed.test:${httpPort}${path}`;
    const output = await run(
      [
        download('', '/big'),
        download('--limit-rate 40M', '/big'),
        download('-p --limit-rate 40M', '/big'),
      ].join('; '),
    );
    expect(output.stdout.trim().split('\n')).toEqual(Array(3).fill(String(bigDownloadBytes)));
  });

  it('npm install works unchanged through the proxy, from a registry stand-in under an allowed name', async () => {
    // A one-file package, packed offline, served as a registry would serve it.
    const project = makeShellProject();
    const source = join(project.home, 'pkg');
    mkdirSync(source);
    writeFileSync(
      join(source, 'package.json'),
      JSON.stringify({ name: 'efferent-proxy-probe', version: '1.0.0', main: 'index.js' }),
    );
    writeFileSync(join(source, 'index.js'), 'module.exports = "installed through the sandbox proxy";\n');
    const tarballName = execFileSync('npm', ['pack', '--silent', '--pack-destination', project.home], {
      cwd: source,
      encoding: 'utf8',
      env: { ...process.env, npm_config_cache: join(project.home, '.npm-cache') },
    }).trim();
    const tarball = readFileSync(join(project.home, tarballName));
    const registry = createHttpServer((request, response) => {
      const origin = `http://registry.test:${(registry.address() as { port: number }).port}`;
      if (request.url === '/efferent-proxy-probe') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            name: 'efferent-proxy-probe',
            'dist-tags': { latest: '1.0.0' },
            versions: {
              '1.0.0': {
                name: 'efferent-proxy-probe',
                version: '1.0.0',
                main: 'index.js',
                dist: {
                  tarball: `${origin}/efferent-proxy-probe/-/${tarballName}`,
                  integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
                },
              },
            },
          }),
        );
      } else if (request.url === `/efferent-proxy-probe/-/${tarballName}`) response.end(tarball);
      else {
        response.statusCode = 404;
        response.end('{}');
      }
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    try {
      const port = (registry.address() as { port: number }).port;
      const tool = createBashTool({
        sandbox: 'required',
        sandboxNetwork: {
          network: { allowedDomains: ['registry.test'], hostOverrides: { 'registry.test': '127.0.0.1' } },
        },
      });
      writeFileSync(join(project.root, 'package.json'), '{"name":"app","version":"0.0.0"}');
      projects.push(project);
      const { result } = await callTool<ShellOutput>(
        tool,
        {
          command: `npm install --no-audit --no-fund --cache /tmp/npm-cache --registry http://registry.test:${port}/ efferent-proxy-probe && node -p 'require("efferent-proxy-probe")'`,
          timeout: 120_000,
        },
        project.context,
      );
      expect(result.data.stdout).toContain('installed through the sandbox proxy');
      expect(result.data.exitCode).toBe(0);
    } finally {
      registry.close();
    }
  }, 150_000);

  it('the session settings turn the proxy on: a name outside sandbox.network.allowedDomains is refused', async () => {
    const project = makeShellProject();
    projects.push(project);
    const holder = project.context.run.resources?.get(sandboxConfigurationKey);
    if (holder) holder.configuration = { network: { allowedDomains: ['example.invalid'] } };
    const output = (
      await callTool<ShellOutput>(
        createBashTool({ sandbox: 'required' }),
        { command: 'curl -sS https://elsewhere.invalid/ 2>&1; true' },
        project.context,
      )
    ).result.data;
    expect(output.notes).toEqual([
      'efferent sandbox: network access to elsewhere.invalid:443 was blocked (it is not in sandbox.network.allowedDomains); allow it by adding "elsewhere.invalid" to sandbox.network.allowedDomains in settings (ask the user), or do without it.',
    ]);
  });
});
