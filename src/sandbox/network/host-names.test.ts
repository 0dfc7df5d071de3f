import { lookup } from 'node:dns/promises';
import { createServer, type Server, connect as tcpConnect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledNetworkPolicy, isResolvableHostName, normaliseHostName } from './network-policy.ts';
import { SandboxProxy } from './proxy.ts';

/** Names that end in an allowed suffix but carry bytes the resolver reads differently. */
const smuggled = [
  'localhost\u0000.allowed.test',
  'evil.example\u0000.allowed.test',
  'evil.example .allowed.test',
  'evil.example@.allowed.test',
  'evil.example%00.allowed.test',
  'evil.example\u0001.allowed.test',
  'evil.example\u007f.allowed.test',
  'evil.example,.allowed.test',
  'evil.example;.allowed.test',
  '.allowed.test',
  'a..allowed.test',
];

describe('host names the proxy resolves are the names the policy checked', () => {
  const policy = new CompiledNetworkPolicy({ allowedDomains: ['*.allowed.test'] });

  it('the system resolver stops at a NUL byte (Node 20) or refuses the name (Node 22): never the whole name', async () => {
    let outcome: string;
    try {
      const addresses = (await lookup('localhost\u0000.allowed.test', { all: true })).map(
        (entry) => entry.address,
      );
      outcome = addresses.some((address) => address === '127.0.0.1' || address === '::1')
        ? 'truncated'
        : 'other';
    } catch (error) {
      outcome = (error as NodeJS.ErrnoException).code === 'ERR_INVALID_ARG_VALUE' ? 'refused' : 'other';
    }
    expect(['truncated', 'refused']).toContain(outcome);
  });

  it.each(smuggled)('refuses %j as not a host name, saying so with the bytes escaped', (host) => {
    const verdict = policy.check(host, 443);
    expect(verdict).toMatchObject({ allowed: false, reason: 'invalid-name' });
    expect(verdict.allowed || verdict.message).toMatch(/not a valid host name/);
    expect(verdict.allowed || verdict.message).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('allows a name only when its normal form is letters, digits, "-", "_" and dots', () => {
    const character = fc.constantFrom(
      ...'aZ09-_.',
      '\u0000',
      ' ',
      '@',
      '%',
      '\u3002',
      '\uff0e',
      '\t',
      '/',
      '#',
      '\u200b',
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 12 }), (chars) => {
        const host = `${chars.join('')}x.allowed.test`;
        if (policy.check(host, 443).allowed) {
          const normal = normaliseHostName(host);
          expect(isResolvableHostName(normal)).toBe(true);
          expect(normal.endsWith('.allowed.test')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps everyday names: IDNs as punycode, underscores, trailing dots, IP literals', () => {
    const open = new CompiledNetworkPolicy({
      allowedDomains: ['*.allowed.test', 'bücher.test', '10.0.0.1', '::1'],
    });
    for (const host of [
      'a.allowed.test',
      '_srv.allowed.test',
      'A-B.Allowed.Test.',
      'bücher.test',
      '10.0.0.1',
      '[::1]',
    ])
      expect(open.check(host, 443).allowed, host).toBe(true);
  });
});

describe('through the running proxy', () => {
  let proxy: SandboxProxy;
  let upstream: Server;
  const resolved: string[] = [];
  beforeAll(async () => {
    upstream = createServer((socket) => socket.end('hello from upstream\n'));
    await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
    const port = (upstream.address() as { port: number }).port;
    proxy = await SandboxProxy.start(
      { allowedDomains: ['*.allowed.test'], hostOverrides: { 'ok.allowed.test': '127.0.0.1' } },
      {
        resolve: async (host) => {
          resolved.push(host);
          return (await lookup(host, { all: true })).map((entry) => entry.address);
        },
      },
    );
    await proxy.listenLoopback();
    expect(port).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((done) => upstream.close(done));
  });

  const talk = (bytes: Buffer): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const socket: Socket = tcpConnect(proxy.loopbackPort as number, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
      socket.write(bytes);
      // The proxy closes a refused connection, and the upstream closes after its greeting.
      setTimeout(() => socket.destroy(), 10_000).unref();
    });
  const upstreamPort = () => (upstream.address() as { port: number }).port;
  const socks = (host: string) => {
    const name = Buffer.from(host, 'latin1');
    const port = Buffer.alloc(2);
    port.writeUInt16BE(upstreamPort());
    return Buffer.concat([
      Buffer.from([0x05, 0x01, 0x00]),
      Buffer.from([0x05, 0x01, 0x00, 0x03, name.length]),
      name,
      port,
    ]);
  };

  it('SOCKS5 and CONNECT reach an allowed name, and refuse smuggled ones without resolving them', async () => {
    const fine = await talk(socks('ok.allowed.test'));
    expect(fine.toString('latin1')).toContain('hello from upstream');
    const connectFine = await talk(
      Buffer.from(`CONNECT ok.allowed.test:${upstreamPort()} HTTP/1.1\r\n\r\n`, 'latin1'),
    );
    expect(connectFine.toString('latin1')).toMatch(/^HTTP\/1\.1 200[\s\S]*hello from upstream/);
    for (const host of smuggled.slice(0, 5)) {
      const viaSocks = await talk(socks(host));
      // The method choice (05 00), then the reply: 02, "connection not allowed by ruleset".
      expect([...viaSocks.subarray(0, 4)], JSON.stringify(host)).toEqual([0x05, 0x00, 0x05, 0x02]);
      const viaConnect = await talk(
        Buffer.from(`CONNECT ${host}:${upstreamPort()} HTTP/1.1\r\n\r\n`, 'latin1'),
      );
      expect(viaConnect.toString('latin1'), JSON.stringify(host)).toMatch(/^HTTP\/1\.1 40[03]/);
      expect(viaConnect.toString('latin1')).not.toContain('hello from upstream');
    }
    expect(resolved).toEqual([]);
  });
});
