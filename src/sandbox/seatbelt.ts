import { join } from 'node:path';
import { protectedWorkspaceEntries, type SandboxPolicy, writableGitEntries } from './sandbox.ts';

/**
 * The macOS backend's profile: the same {@link SandboxPolicy} as bubblewrap, written as a Seatbelt
 * (SBPL) profile for `sandbox-exec -p`. Seatbelt names paths instead of mounting over them, so
 * protections need no covers: a missing protected name is denied as a path. Later rules win over
 * earlier ones for the same operation, so the profile goes from broad to narrow: read everything,
 * write the working directories, then take back the protected entries, the git directory outside
 * its allowlist and the session folder, then hide what Read denies cover.
 *
 * macOS has no network namespace: with `networkProxy`, the proxies listen on loopback ports and the
 * profile allows outbound connections to those ports only (`proxyPorts`).
 */
export interface SeatbeltOptions {
  /** Loopback ports of the HTTP and SOCKS5 proxies when the network goes through them. */
  proxyPorts?: { http: number; socks: number };
}

/** Quotes a path as an SBPL string literal. */
function quote(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** An SBPL regular expression literal matching `path` exactly, then `suffix`. */
function regexFor(path: string, suffix: string): string {
  const escaped = path.replace(/[.*+?^${}()|[\]\\"]/g, (c) => `\\${c}`);
  return `#"^${escaped}${suffix}"`;
}

/** The profile text for `policy`. Deterministic: the same policy gives the same bytes. */
export function seatbeltProfile(policy: SandboxPolicy, options: SeatbeltOptions = {}): string {
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    '',
    '; Processes: run programs, fork, signal only the sandbox, read system facts.',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow pseudo-tty)',
    '(allow file-ioctl)',
    '',
    '; Files: read everything, write the working directories, the private temp folder and devices.',
    '(allow file-read*)',
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))',
  ];
  const writable = [...policy.writableDirectories].sort();
  if (writable.length > 0 || policy.privateTmpDirectory)
    lines.push(
      `(allow file-write*${[...writable, ...(policy.privateTmpDirectory ? [policy.privateTmpDirectory] : [])]
        .map((path) => ` (subpath ${quote(path)})`)
        .join('')})`,
    );
  for (const directory of writable) {
    lines.push('', `; Protected in ${directory}: read-only whether present or not.`);
    const entries = [...protectedWorkspaceEntries].sort();
    lines.push(
      `(deny file-write*${entries.map((name) => ` (subpath ${quote(join(directory, name))})`).join('')})`,
    );
    // .git: read-only except its state; `*.lock` files anywhere in it stay writable.
    const git = join(directory, '.git');
    lines.push(`(deny file-write* (subpath ${quote(git)}))`);
    const state = [...writableGitEntries].sort();
    lines.push(
      `(allow file-write*${state.map((name) => ` (subpath ${quote(join(git, name))})`).join('')} (regex ${regexFor(git, '/.*\\.lock$')}))`,
    );
    lines.push(`(allow file-write* (subpath ${quote(join(git, 'info'))}))`);
    lines.push(`(deny file-write* (literal ${quote(join(git, 'info', 'attributes'))}))`);
  }
  lines.push('', '; Session state: read-only, but for the files the command itself writes.');
  lines.push(`(deny file-write* (subpath ${quote(policy.sessionDirectory)}))`);
  for (const file of [...(policy.writableSessionFiles ?? [])].sort())
    lines.push(`(allow file-write* (literal ${quote(file)}))`);
  const hidden = [...(policy.hiddenPaths ?? [])].sort();
  if (hidden.length > 0) {
    lines.push('', '; Read deny rules and sandbox.filesystem.denyRead: neither readable nor writable.');
    lines.push(`(deny file-read* file-write*${hidden.map((path) => ` (subpath ${quote(path)})`).join('')})`);
  }
  lines.push('', '; Network.');
  if (policy.allowNetwork) lines.push('(allow network*)');
  else if (policy.networkProxy && options.proxyPorts) {
    lines.push(
      `(allow network-outbound (remote tcp "localhost:${options.proxyPorts.http}") (remote tcp "localhost:${options.proxyPorts.socks}"))`,
    );
  }
  if (!policy.allowNetwork && !policy.allowUnixSockets)
    lines.push('(deny network-outbound (remote unix-socket))');
  return `${lines.join('\n')}\n`;
}
