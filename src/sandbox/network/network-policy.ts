import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * What sandboxed commands may reach through efferent's proxies: Claude Code's
 * `sandbox.network.allowedDomains` / `deniedDomains`, with its matching: `example.com` is that host
 * only, `*.example.com` any subdomain but not the apex, an optional `:port` limits an entry to one
 * port, names compare case-insensitively without a trailing dot, and wildcards never match an IP
 * address. Denied entries win over allowed ones.
 */
export interface NetworkPolicy {
  allowedDomains: readonly string[];
  deniedDomains?: readonly string[];
  /**
   * Names resolved without DNS, to addresses that may be private (tests: loopback servers under
   * made-up names). Only the names listed here skip the private-address check.
   */
  hostOverrides?: Readonly<Record<string, string>>;
}

/** A compiled allowedDomains / deniedDomains entry. */
interface DomainEntry {
  text: string;
  host: string;
  wildcard: boolean;
  port?: number;
}

/** Lowercase, punycode, no trailing dot, no IPv6 brackets. */
export function normaliseHostName(host: string): string {
  const bare = host
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
  if (bare.includes(':') || isIP(bare)) return bare.toLowerCase();
  const ascii = domainToASCII(bare);
  return ascii === '' ? bare.toLowerCase() : ascii;
}

/**
 * A host name as the system resolver reads it: dot-separated labels of letters, digits, `-` and `_`
 * (after {@link normaliseHostName}, so IDNs are punycode), at most 63 bytes a label and 253 in all.
 * Anything else can mean one thing to the policy and another to the resolver: the C resolver stops
 * at a NUL byte, so `evil.com\0.example.com` ends in `.example.com` but resolves `evil.com`; spaces,
 * `@`, `%` and control characters have no meaning in DNS at all.
 */
const dnsName = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/** Whether a normalised host is an IP address or a name the resolver reads exactly as written. */
export function isResolvableHostName(host: string): boolean {
  return isIP(host) !== 0 || dnsName.test(host);
}

/** A raw host with every byte outside printable ASCII written as `\xHH`, for messages. */
function escapeHostForDisplay(host: string): string {
  return host.replace(/[^\x21-\x7e]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Compiles an entry (`host`, `*.host`, either with `:port`); undefined when it is not one. */
export function compileDomainEntry(text: string): DomainEntry | undefined {
  let rest = text.trim();
  let port: number | undefined;
  const withPort = /^(.+?):(\d{1,5})$/.exec(rest);
  if (withPort?.[1] && withPort[2] && !withPort[1].includes(':')) {
    rest = withPort[1];
    port = Number(withPort[2]);
    if (port < 1 || port > 65535) return undefined;
  }
  const wildcard = rest.startsWith('*.');
  const host = normaliseHostName(wildcard ? rest.slice(2) : rest);
  if (!isResolvableHostName(host)) return undefined;
  const entry: DomainEntry = { text, host, wildcard };
  if (port !== undefined) entry.port = port;
  return entry;
}

/** Whether `host:port` is covered by an entry. */
function entryMatches(entry: DomainEntry, host: string, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  if (entry.wildcard) return isIP(host) === 0 && host.endsWith(`.${entry.host}`);
  return host === entry.host;
}

/** Why a connection was refused, in words for the command's output and the tool result. */
export type NetworkVerdict =
  | { allowed: true }
  | {
      allowed: false;
      reason: 'denied' | 'not-allowed' | 'private-address' | 'invalid-name';
      message: string;
    };

/** Entries that do not compile, for a notice. */
export function invalidDomainEntries(entries: readonly string[]): string[] {
  return entries.filter((entry) => compileDomainEntry(entry) === undefined);
}

/** A policy compiled once per proxy. */
export class CompiledNetworkPolicy {
  readonly #allowed: DomainEntry[];
  readonly #denied: DomainEntry[];
  readonly overrides: ReadonlyMap<string, string>;

  constructor(policy: NetworkPolicy) {
    const compile = (list: readonly string[] = []) =>
      list.map(compileDomainEntry).filter((entry): entry is DomainEntry => entry !== undefined);
    this.#allowed = compile(policy.allowedDomains);
    this.#denied = compile(policy.deniedDomains);
    this.overrides = new Map(
      Object.entries(policy.hostOverrides ?? {}).map(([name, address]) => [normaliseHostName(name), address]),
    );
  }

  /** The decision on a name before resolution. */
  check(rawHost: string, port: number): NetworkVerdict {
    const host = normaliseHostName(rawHost);
    if (!isResolvableHostName(host))
      return {
        allowed: false,
        reason: 'invalid-name',
        message: blockedLine(
          escapeHostForDisplay(rawHost),
          port,
          'it is not a valid host name: only letters, digits, "-", "_" and dots, or an IP address',
          false,
        ),
      };
    const denied = this.#denied.find((entry) => entryMatches(entry, host, port));
    if (denied)
      return {
        allowed: false,
        reason: 'denied',
        message: blockedLine(
          host,
          port,
          `it matches "${denied.text}" in sandbox.network.deniedDomains`,
          false,
        ),
      };
    if (this.#allowed.some((entry) => entryMatches(entry, host, port))) return { allowed: true };
    return {
      allowed: false,
      reason: 'not-allowed',
      message: blockedLine(host, port, 'it is not in sandbox.network.allowedDomains', true),
    };
  }
}

/** The line a blocked connection produces, in the command's output and in the result. */
export function blockedLine(host: string, port: number, why: string, canAllow: boolean): string {
  const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const next = canAllow
    ? `allow it by adding "${host}" to sandbox.network.allowedDomains in settings (ask the user), or do without it`
    : 'do not retry it; ask the user if it is needed';
  return `efferent sandbox: network access to ${target} was blocked (${why}); ${next}.`;
}

const privateRanges = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const)
    list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
    ['2001:db8::', 32],
    ['100::', 64],
  ] as const)
    list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible or NAT64 IPv6 address. */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/**
 * True for addresses a sandboxed command may never reach by name: loopback, private (RFC 1918,
 * unique local), link-local, carrier-grade NAT, multicast, unspecified and documentation ranges,
 * including IPv4 addresses spelled inside IPv6 ones.
 */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return privateRanges.check(address, 'ipv4');
  if (kind !== 6) return true;
  const inner = embeddedIPv4(address);
  if (inner !== undefined) return privateRanges.check(inner, 'ipv4');
  return privateRanges.check(address, 'ipv6');
}
