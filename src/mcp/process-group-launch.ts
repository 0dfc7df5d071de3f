import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { isExecutableFile } from '../core/index.ts';

/** How to spawn a server so that it leads a process group of its own. */
export interface ProcessGroupLaunch {
  file: string;
  args: string[];
  /** Node's `detached`: a new session (setsid), which also makes a new process group. */
  detached: boolean;
}

/**
 * Run by perl, which then becomes the server: a new process group (not a new session), then exec.
 * `$ARGV[0]` is the resolved program, the rest is the server's own argv (argv[0] as configured).
 */
const groupLeaderScript =
  'setpgrp(0, 0); my $program = shift @ARGV; exec { $program } @ARGV; print STDERR "efferent: could not start $program: $!\\n"; exit 127;';

let perlPath: string | null | undefined;

/** The system's perl: its usual places first, then efferent's own PATH (never a server's). */
function systemPerl(): string | undefined {
  if (perlPath === undefined) {
    const fromPath = (process.env.PATH ?? '').split(delimiter).filter((directory) => isAbsolute(directory));
    const candidates = [
      '/usr/bin/perl',
      '/bin/perl',
      ...fromPath.map((directory) => join(directory, 'perl')),
    ];
    perlPath = candidates.find(isExecutableFile) ?? null;
  }
  return perlPath ?? undefined;
}

/** The program spawn would run for `command`: a path with a slash from `cwd`, a bare name from PATH. */
export function resolveCommand(command: string, path: string | undefined, cwd: string): string | undefined {
  if (command.includes('/')) {
    const full = resolve(cwd, command);
    return isExecutableFile(full) ? full : undefined;
  }
  for (const directory of (path ?? '').split(delimiter)) {
    if (directory === '') continue;
    const full = resolve(cwd, directory, command);
    if (isExecutableFile(full)) return full;
  }
  return undefined;
}

/**
 * A stdio server runs in its own process group so that closing it can kill everything it started
 * (npx wrappers, shells, grandchildren). Node offers that only through `detached` (setsid), and a new
 * session also puts the server in a scheduler autogroup of its own on Linux systems that enable them
 * (most desktops do), where every request and reply makes the two processes trade the CPU across
 * groups: a round trip took about three times as long under load. So where the system's perl is
 * found, the server is started through it: perl makes a new process group in the same session and
 * execs the server (same process id, no process left in between). Elsewhere (no perl, Windows, a
 * program that cannot be found, which then fails as spawn reports it) the server is detached as before.
 */
export function processGroupLaunch(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string | undefined,
): ProcessGroupLaunch {
  const detached = { file: command, args: [...args], detached: true };
  if (process.platform === 'win32' || process.env.EFFERENT_MCP_SETSID === '1') return detached;
  const perl = systemPerl();
  if (perl === undefined) return detached;
  const program = resolveCommand(command, env['PATH'] ?? process.env.PATH, cwd ?? process.cwd());
  if (program === undefined) return detached;
  return { file: perl, args: ['-e', groupLeaderScript, program, command, ...args], detached: false };
}
