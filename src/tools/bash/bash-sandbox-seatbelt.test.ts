import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxConfigurationKey, startCallProxy } from '../../sandbox/config.ts';
import type { SandboxPolicy } from '../../sandbox/sandbox.ts';
import { sandboxExecPath } from '../../sandbox/sandbox.ts';
import { seatbeltProfile } from '../../sandbox/seatbelt.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject } from '../shared/process/test-shell.ts';
import { buildBashInvocation } from './bash-invocation.ts';
import { createBashTool } from './bash.ts';

const goldenDir = join(import.meta.dirname, '..', '..', '..', 'test', 'golden', 'seatbelt');

/** Compares with the committed file; `EFFERENT_UPDATE_GOLDEN=1` rewrites it (review the diff). */
function golden(name: string, text: string): void {
  const path = join(goldenDir, name);
  if (process.env['EFFERENT_UPDATE_GOLDEN'] === '1') writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

const policy: SandboxPolicy = {
  writableDirectories: ['/Users/dev/project'],
  sessionDirectory: '/Users/dev/.efferent/sessions/s1',
  homeDirectory: '/Users/dev',
  allowNetwork: false,
  privateTmpDirectory: '/private/var/folders/xy/T/efferent-sandbox-tmp-1',
  writableSessionFiles: ['/Users/dev/.efferent/sessions/s1/shell/b1.cwd'],
  hiddenPaths: ['/Users/dev/project/.env'],
  networkProxy: true,
};

const darwinBash = (overrides: Partial<SandboxPolicy>, proxyPort?: number) =>
  buildBashInvocation({
    command: 'curl -sS https://registry.npmjs.org/',
    cwdFile: '/Users/dev/.efferent/sessions/s1/shell/b1.cwd',
    cwd: '/Users/dev/project',
    shell: '/bin/bash',
    mode: 'required',
    disableSandbox: false,
    probe: () => ({ available: true }),
    backend: { platform: 'darwin', ...(proxyPort ? { proxyPort } : {}) },
    policy: { ...policy, ...overrides },
  });

/** The same Bash interface picks Seatbelt on macOS; tested on any machine by injecting the platform. */
describe('Bash on macOS runs under sandbox-exec with the policy as a Seatbelt profile (golden)', () => {
  it('behind the proxy: the profile allows its loopback port only, the variables point there', () => {
    const invocation = darwinBash({}, 49152);
    expect(invocation.sandboxed).toBe(true);
    expect(invocation.file).toBe(sandboxExecPath);
    expect(invocation.args[0]).toBe('-p');
    const profile = invocation.args[1] as string;
    expect(profile).toBe(seatbeltProfile(policy, { proxyPorts: { http: 49152, socks: 49152 } }));
    golden('bash-proxied.sb', profile);
    golden('bash-proxied.argv.json', `${JSON.stringify(invocation.args.slice(2), null, 2)}\n`);
    expect(invocation.inheritedFds).toEqual([]);
    expect(invocation.needsIpc).toBeUndefined();
  });

  it('without the proxy port it gets no network at all (failing closed), and no proxy variables', () => {
    const invocation = darwinBash({});
    const profile = invocation.args[1] as string;
    expect(profile).not.toMatch(/\(allow network/);
    expect(profile).toContain('(deny network-outbound (remote unix-socket))');
    expect(invocation.args.slice(2, 4)).toEqual([
      '/usr/bin/env',
      'TMPDIR=/private/var/folders/xy/T/efferent-sandbox-tmp-1/',
    ]);
    expect(invocation.args.join(' ')).not.toContain('HTTP_PROXY');
  });

  it('with the host network: the profile allows it and no proxy is involved', () => {
    const invocation = darwinBash({ allowNetwork: true }, 49152);
    expect(invocation.args[1]).toContain('(allow network*)');
    expect(invocation.args.join(' ')).not.toContain('HTTP_PROXY');
  });

  it('Linux keeps bubblewrap for the same call', () => {
    const invocation = buildBashInvocation({
      command: 'true',
      cwdFile: '/tmp/b1.cwd',
      cwd: '/',
      shell: '/bin/bash',
      mode: 'required',
      disableSandbox: false,
      probe: () => ({ available: true }),
      backend: { platform: 'linux' },
      policy: { ...policy, writableDirectories: [], networkProxy: false, hiddenPaths: [] },
    });
    expect(invocation.file).toBe('bwrap');
    invocation.cleanup();
  });
});

/** What macOS commands reach: the proxy on a loopback port, with the same checks as the Unix socket. */
describe('the proxy on a loopback port (what Seatbelt allows)', () => {
  let http: Server;
  let port = 0;
  beforeAll(async () => {
    http = createServer((request, response) => response.end(`hello ${request.headers.host}`));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as { port: number }).port;
  });
  afterAll(() => http.close());

  it('serves HTTP and SOCKS5 on one port, allowing only the allowlist', async () => {
    const project = makeShellProject();
    const proxy = await startCallProxy(
      project.context,
      {
        network: {
          allowedDomains: ['allowed.test'],
          hostOverrides: { 'allowed.test': '127.0.0.1', 'denied.test': '127.0.0.1' },
        },
      },
      'darwin',
    );
    try {
      const proxyPort = proxy?.loopbackPort;
      expect(proxyPort).toBeGreaterThan(0);
      // Asynchronous: the proxy runs in this process.
      const curl = async (...args: string[]) =>
        (await promisify(execFile)('curl', ['-sS', '--noproxy', '', ...args], { timeout: 30_000 })).stdout;
      expect(await curl('-x', `http://127.0.0.1:${proxyPort}`, `http://allowed.test:${port}/`)).toBe(
        `hello allowed.test:${port}`,
      );
      expect(await curl('--socks5-hostname', `127.0.0.1:${proxyPort}`, `http://allowed.test:${port}/`)).toBe(
        `hello allowed.test:${port}`,
      );
      expect(await curl('-x', `http://127.0.0.1:${proxyPort}`, `http://denied.test:${port}/`)).toContain(
        `network access to denied.test:${port} was blocked`,
      );
    } finally {
      await proxy?.close();
      await project.cleanup();
    }
  });
});

const onMac = process.platform === 'darwin' && existsSync(sandboxExecPath);

/** The real thing, where macOS is available. */
describe.skipIf(!onMac)('Bash under Seatbelt at runtime (macOS only)', () => {
  it('writes the project only, reads no denied file, and reaches only allowed names', async () => {
    const server = createServer((request, response) => response.end(`hello ${request.headers.host}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const project = makeShellProject();
    try {
      writeFileSync(join(project.root, '.env'), 'TOKEN=secret\n');
      const holder = project.context.run.resources?.get(sandboxConfigurationKey);
      if (holder) holder.configuration = { denyRead: [join(project.root, '.env')] };
      const bash = createBashTool({
        sandbox: 'required',
        sandboxNetwork: {
          network: {
            allowedDomains: ['allowed.test'],
            hostOverrides: { 'allowed.test': '127.0.0.1', 'denied.test': '127.0.0.1' },
          },
        },
      });
      const run = async (command: string) =>
        (await callTool<ShellOutput>(bash, { command, timeout: 60_000 }, project.context)).result.data;
      expect((await run('echo in > inside.txt && cat inside.txt')).stdout).toContain('in');
      await run(`echo out > ${join(project.home, 'outside.txt')}`);
      expect(existsSync(join(project.home, 'outside.txt'))).toBe(false);
      expect((await run('cat .env')).stdout).not.toContain('secret');
      expect((await run(`curl -sS http://allowed.test:${port}/`)).stdout).toBe(`hello allowed.test:${port}`);
      expect((await run(`curl -sS http://denied.test:${port}/`)).stdout).toContain('was blocked');
      expect((await run(`curl -sS --noproxy '*' http://127.0.0.1:${port}/`)).exitCode).not.toBe(0);
    } finally {
      server.close();
      await project.cleanup();
    }
  });
});
