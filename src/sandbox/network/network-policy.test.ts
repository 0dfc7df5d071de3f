import { describe, expect, it } from 'vitest';
import { compileDomainEntry, CompiledNetworkPolicy, isPrivateAddress } from './network-policy.ts';

describe('sandbox.network.allowedDomains matching (Claude Code semantics)', () => {
  const policy = new CompiledNetworkPolicy({
    allowedDomains: [
      'github.com',
      '*.npmjs.org',
      'api.example.com:8443',
      'XN--BCHER-KVA.example',
      '10.1.2.3',
    ],
    deniedDomains: ['evil.npmjs.org', '*.internal.github.com'],
  });
  it.each([
    ['github.com', 443, true],
    ['GitHub.com.', 80, true],
    ['api.github.com', 443, false],
    ['registry.npmjs.org', 443, true],
    ['a.b.npmjs.org', 443, true],
    ['npmjs.org', 443, false],
    ['evil.npmjs.org', 443, false],
    ['api.example.com', 8443, true],
    ['api.example.com', 443, false],
    ['bücher.example', 443, true],
    ['10.1.2.3', 80, true],
    ['github.com.evil.test', 443, false],
    ['notgithub.com', 443, false],
  ] as const)('%s:%i allowed=%s', (host, port, allowed) => {
    expect(policy.check(host, port).allowed).toBe(allowed);
  });

  it('denied entries win and say so, with what to do next', () => {
    const verdict = policy.check('x.internal.github.com', 443);
    expect(verdict).toMatchObject({ allowed: false, reason: 'denied' });
    const missing = policy.check('example.org', 443);
    expect(missing.allowed || missing.message).toMatch(
      /^efferent sandbox: network access to example\.org:443 was blocked \(it is not in sandbox\.network\.allowedDomains\); allow it .*\.$/,
    );
  });

  it('wildcards never match IP addresses, and bad entries do not compile', () => {
    const wide = new CompiledNetworkPolicy({ allowedDomains: ['*.0.0.1', '*.1'] });
    expect(wide.check('127.0.0.1', 80).allowed).toBe(false);
    expect(compileDomainEntry('*')).toBeUndefined();
    expect(compileDomainEntry('a.*.com')).toBeUndefined();
    expect(compileDomainEntry('https://x.com/path')).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', true],
    ['10.0.0.8', true],
    ['172.20.1.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    ['not-an-address', true],
  ] as const)('%s is private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});
