import { domainToASCII } from 'node:url';

/**
 * WebFetch `domain:` rules. Hosts are compared after WHATWG URL parsing (so userinfo, fragments,
 * backslashes, IP spellings and IDN are read the way a fetch reads them), lowercased, with trailing
 * dots removed, label by label — never by substring.
 */

/** A URL's host as rules see it, or why it has none. */
export type UrlHost = { host: string; port: string; protocol: string } | { invalid: string };

/** Parses a URL the way `fetch` will. Only http and https have hosts that domain rules speak about. */
export function hostOfUrl(url: string): UrlHost {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { invalid: 'the URL does not parse' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { invalid: `the URL uses ${parsed.protocol} rather than http or https` };
  }
  const host = normaliseHost(parsed.hostname);
  if (host === '') return { invalid: 'the URL has no host' };
  return { host, port: parsed.port, protocol: parsed.protocol };
}

/** Lowercases, converts IDN to punycode and strips trailing dots. */
export function normaliseHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (bare.includes(':')) return bare.toLowerCase();
  const ascii = domainToASCII(bare.replace(/\*/g, 'efferent-star'));
  return (ascii === '' ? bare.toLowerCase() : ascii).replace(/efferent-star/g, '*');
}

/** A compiled `domain:` pattern. */
export interface DomainPattern {
  /** `*.example.com`: any subdomain, not the apex. */
  anySubdomainOf?: string;
  /** Labels, where `*` matches one whole label or part of one. */
  labels?: RegExp[];
  /** The last label as written (a rule index buckets by it when it has no `*`). */
  lastLabel?: string;
  port?: string;
}

/** Compiles the text after `domain:`. An optional `:port` restricts the port. */
export function compileDomainPattern(text: string): DomainPattern {
  let hostText = text.trim();
  let port: string | undefined;
  const portMatch = /^(.*[^:]):(\d+)$/.exec(hostText);
  if (portMatch?.[1] && portMatch[2] && !portMatch[1].includes(':')) {
    hostText = portMatch[1];
    port = portMatch[2];
  }
  const host = normaliseHost(hostText);
  const pattern: DomainPattern = {};
  if (port !== undefined) pattern.port = port;
  if (host.startsWith('*.') && !host.slice(2).includes('*')) {
    pattern.anySubdomainOf = host.slice(2);
    return pattern;
  }
  pattern.lastLabel = host.slice(host.lastIndexOf('.') + 1);
  pattern.labels = host.split('.').map(
    (label) =>
      new RegExp(
        `^${label
          .split('*')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^.]*')}$`,
      ),
  );
  return pattern;
}

const defaultPorts: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** Whether a parsed URL host is covered by a domain pattern. */
export function domainMatches(
  pattern: DomainPattern,
  url: { host: string; port: string; protocol: string },
): boolean {
  if (pattern.port !== undefined) {
    const port = url.port === '' ? defaultPorts[url.protocol] : url.port;
    if (port !== pattern.port) return false;
  }
  if (pattern.anySubdomainOf !== undefined) return url.host.endsWith(`.${pattern.anySubdomainOf}`);
  const labels = url.host.split('.');
  const expected = pattern.labels ?? [];
  return (
    labels.length === expected.length && expected.every((regex, index) => regex.test(labels[index] ?? ''))
  );
}
