import type { Stats } from 'node:fs';

/** Paths that never end (zero, random), wait for input (stdin, tty) or leak secrets (environ). */
const blockedPaths = new Set([
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
  '/dev/full',
  '/dev/null',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/console',
  '/dev/ptmx',
  '/dev/kmsg',
  '/dev/mem',
  '/dev/kmem',
  '/dev/port',
  '/proc/kcore',
  '/proc/kmsg',
]);

const blockedPatterns: readonly RegExp[] = [
  /^\/dev\/fd(\/|$)/,
  /^\/dev\/(tty|pts\/)/,
  /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(fd|fdinfo)(\/|$)/,
  /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(environ|mem|cmdline|auxv|pagemap|kcore)$/,
];

/**
 * Why a path must not be opened by a file tool, or undefined when it may be. Checked by name before any
 * open, because opening some of these blocks forever or streams without end.
 */
export function blockedPathReason(absolutePath: string): string | undefined {
  // Every blocked name is under /dev or /proc: any other path is settled without a pattern.
  if (!absolutePath.startsWith('/dev/') && !absolutePath.startsWith('/proc/')) return undefined;
  if (blockedPaths.has(absolutePath) || blockedPatterns.some((pattern) => pattern.test(absolutePath))) {
    return `${absolutePath} is a device or process file; reading or writing it could block or never end, so file tools refuse it.`;
  }
  return undefined;
}

/** Why an existing file must not be opened as a regular file (FIFOs, sockets, devices), from its stat. */
export function specialFileReason(absolutePath: string, stats: Stats): string | undefined {
  const kind = stats.isFIFO()
    ? 'a named pipe (FIFO)'
    : stats.isSocket()
      ? 'a socket'
      : stats.isCharacterDevice()
        ? 'a character device'
        : stats.isBlockDevice()
          ? 'a block device'
          : undefined;
  return kind
    ? `${absolutePath} is ${kind}, not a regular file; file tools only work on regular files.`
    : undefined;
}
