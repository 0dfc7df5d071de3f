import { statSync } from 'node:fs';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { isAbsolute, sep } from 'node:path';
import { mtimeOf } from './newest-first.ts';
import type { StampedPaths } from './stat-pool.ts';
import { isExecutableFile } from '../../core/index.ts';

/**
 * The program the system's perl runs for efferent, started once and kept (see {@link StatHelper}): for
 * each request read from stdin it starts the lister, reads its NUL-separated paths, stats each one
 * with the `newfstatat` system call (the numbers Node's `statSync` gives, without Node's per-call
 * cost) and prints only the records that can be among the newest `limit`, then a trailer.
 *
 * Times are Node's `mtimeMs`, computed with the same double arithmetic (`sec * 1000 + nsec / 1e6`),
 * so ties are the same ties. Its order is newer first, then names of ASCII bytes only before others,
 * then bytes; ASCII names compare as JavaScript compares them, others may not, so besides the first
 * `limit` it keeps every non-ASCII name tied with the last of them: whatever it drops, at least
 * `limit` of the names it kept come before it in JavaScript's order (newer, or tied and an ASCII name
 * smaller by bytes). A path that vanished or can't be stat'ed counts as oldest. A name that is not
 * valid UTF-8 is not stat'ed here but sent back as `? PATH`: efferent decodes it (with replacement
 * characters) and stats what it decoded, as its stat threads do, so both give the same answer.
 *
 * A request is NUL-ended fields, the first their count: the root (with its separator), the root's
 * mtime as seconds and nanoseconds (the helper stats the root and answers `mismatch` unless they
 * match, which guards the `struct stat` layout it reads), `nul` or `newline`, how many environment
 * entries follow, the limit, the entries, then the lister's program and arguments (run in the root,
 * stdin from /dev/null). The answer: records `SEC NSEC PATH\0`, `- PATH\0` (no time), `? PATH\0`
 * (not UTF-8), and last `#COUNT STATUS\0` (paths read; the lister's exit code, 128 + signal, or a
 * word when it did not run); on stderr, the lister's stderr and then a NUL. SIGTERM ends the lister
 * too.
 */
const helperScript = String.raw`
use strict;
use POSIX ();
my $nr = shift @ARGV;
my $buf = "\0" x 256;
my $oldest = -9**9**9;
my $utf8 = qr/\A(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})*\z/;
my $lister = 0;
$SIG{TERM} = sub { kill 'KILL', $lister if $lister; POSIX::_exit(143); };
binmode STDIN;
binmode STDOUT;
$| = 1;
select((select(STDERR), $| = 1)[0]);
sub stamp {
  return () unless syscall($nr, -100, $_[0], $buf, 0) == 0;
  return unpack('q q', substr($buf, 88, 16));
}
# A time as 8 bytes that sort (as strings) newest first: IEEE 754, made order-preserving, inverted.
sub time_key {
  my $bits = pack('d>', $_[0]);
  $bits = (ord($bits) & 0x80) ? ~$bits : $bits ^ "\x80\0\0\0\0\0\0\0";
  return ~$bits;
}
# Kept records are strings whose byte order is the helper's order: time key, 0 for an ASCII-only name
# (1 otherwise), the name, NUL, then "SEC NSEC" or "-". Perl sorts them in C, with no comparator.
my (@kept, $floor, $hold, $limit);
sub trim {
  @kept = sort @kept;
  return if @kept <= $limit;
  my $last = substr($kept[$limit - 1], 0, 8);
  my @ties = grep { substr($_, 0, 8) eq $last && substr($_, 8, 1) eq "\1" } @kept[$limit .. $#kept];
  splice @kept, $limit;
  push @kept, @ties;
  $floor = $last;
  $hold = 2 * @kept + 4096 if 2 * @kept + 4096 > $hold;
}
sub field { local $/ = "\0"; my $value = <STDIN>; exit 0 unless defined $value; chomp $value; return $value; }
sub answer { print $_[0]; print STDERR "\0"; }
exit 1 unless length(pack('F', 0)) == 8;
while (1) {
  my @request = map { field() } 1 .. field();
  my ($prefix, $root_sec, $root_nsec, $sep, $env_count) = splice @request, 0, 5;
  $limit = shift @request;
  my @env = splice @request, 0, $env_count;
  my ($sec, $nsec) = stamp($prefix);
  if (!(defined $sec && $sec == $root_sec && $nsec == $root_nsec && @request)) { answer("#0 mismatch\0"); next; }
  my $pid = open(my $list, '-|');
  if (!defined $pid) { answer("#0 fork\0"); next; }
  if ($pid == 0) {
    %ENV = map { split /=/, $_, 2 } @env;
    open STDIN, '<', '/dev/null';
    chdir $prefix and exec { $request[0] } @request;
    print STDERR "efferent: could not start $request[0]: $!\n";
    POSIX::_exit(127);
  }
  $lister = $pid;
  binmode $list;
  @kept = ();
  $floor = "\xff" x 9;
  $hold = 2 * $limit + 4096;
  my $odd = '';
  my $count = 0;
  local $/ = $sep eq 'newline' ? "\n" : "\0";
  while (my $path = <$list>) {
    chomp $path;
    $path = substr($path, 2) if substr($path, 0, 2) eq './';
    $count++;
    if ($path =~ /[\x80-\xff]/ && $path !~ $utf8) { $odd .= "? $path\0"; next; }
    my ($sec, $nsec) = stamp(substr($path, 0, 1) eq '/' ? $path : $prefix . $path);
    my $key = time_key(defined $sec ? $sec * 1000 + $nsec / 1e6 : $oldest);
    next if $key gt $floor;
    push @kept, $key . ($path =~ /[\x80-\xff]/ ? "\1" : "\0") . $path . "\0" . (defined $sec ? "$sec $nsec" : '-');
    trim() if @kept > $hold;
  }
  close $list;
  $lister = 0;
  my $status = $? == -1 ? 'wait' : ($? & 127) ? 128 + ($? & 127) : $? >> 8;
  $status = 'start' if $status eq '127';
  trim();
  my $out = '';
  for my $entry (@kept) {
    my $end = rindex($entry, "\0");
    $out .= substr($entry, $end + 1) . ' ' . substr($entry, 9, $end - 9) . "\0";
  }
  answer("$out$odd#$count $status\0");
}
`;

/** The `newfstatat` system call's number, on the architectures whose `struct stat` the helper reads. */
const statSyscall: Partial<Record<string, number>> = { x64: 262, arm64: 79 };

/** What the helper found. */
export interface PerlNewest {
  /** The records that can be among the newest `limit` (a superset of them), with Node's `mtimeMs`. */
  stamped: StampedPaths;
  /** Paths the lister printed. */
  listed: number;
  /** The lister's exit code (128 + signal when a signal ended it). */
  exitCode: number;
  /** The first few KB of the lister's and the helper's stderr. */
  stderr: string;
}

/** Options for {@link newestThroughPerl}. */
export interface PerlNewestOptions {
  perl: string;
  /** The lister: a program (absolute path) and its arguments; it prints paths relative to `root`. */
  command: readonly string[];
  /** The directory paths are relative to, and the lister's working directory. */
  root: string;
  /** How many of the newest are wanted. */
  limit: number;
  /** The byte that ends each path in the lister's output: NUL (the default) or `\n`. */
  separator?: '\0' | '\n';
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

const maxStderr = 8192;

let systemPerlPath: string | null | undefined;

/**
 * The system's perl for the stat helper, or undefined where the helper can't run: not Linux on x64
 * or arm64, no perl in /usr/bin or /bin, or `EFFERENT_STAT_PERL=0` in `env`. Only the system's
 * usual places are looked at (never PATH), so nothing a command or an edit put in the workspace runs.
 */
export function statHelperPerl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const setting = env['EFFERENT_STAT_PERL']?.trim().toLowerCase();
  if (setting === '0' || setting === 'false' || setting === 'off') return undefined;
  if (process.platform !== 'linux' || statSyscall[process.arch] === undefined) return undefined;
  if (systemPerlPath === undefined)
    systemPerlPath = ['/usr/bin/perl', '/bin/perl'].find(isExecutableFile) ?? null;
  return systemPerlPath ?? undefined;
}

/** Perl's own settings (`PERL5OPT`, `PERL5LIB`, …) would load code into the helper: they are dropped. */
function helperEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!/^PERL/i.test(name) && name !== 'RIPGREP_CONFIG_PATH') kept[name] = value;
  }
  return kept;
}

/** `root`'s modification time as whole seconds and nanoseconds, for the helper's self-check. */
function rootTime(root: string): [string, string] | undefined {
  try {
    const nanoseconds = statSync(root, { bigint: true }).mtimeNs;
    return [String(nanoseconds / 1_000_000_000n), String(nanoseconds % 1_000_000_000n)];
  } catch {
    return undefined;
  }
}

/** Splits the helper's output into records and the trailer. */
function parseHelperOutput(
  output: Buffer,
  prefix: string,
): { stamped: StampedPaths; listed: number; exitCode: number } {
  const records: Buffer[] = [];
  for (let start = 0; start < output.length; ) {
    const end = output.indexOf(0, start);
    if (end === -1) break;
    records.push(output.subarray(start, end));
    start = end + 1;
  }
  const trailer = /^#(\d+) (\d+)$/.exec(records.pop()?.toString('latin1') ?? '');
  if (!trailer) throw new Error('The stat helper ended without its trailer.');
  const paths: string[] = [];
  const times = new Float64Array(records.length);
  for (const [index, record] of records.entries()) {
    if (record[0] === 0x3f && record[1] === 0x20) {
      const path = record.subarray(2).toString('utf8');
      times[index] = mtimeOf(isAbsolute(path) ? path : prefix + path);
      paths.push(path);
      continue;
    }
    if (record[0] === 0x2d && record[1] === 0x20) {
      times[index] = Number.NEGATIVE_INFINITY;
      paths.push(record.subarray(2).toString('utf8'));
      continue;
    }
    const first = record.indexOf(0x20);
    const second = record.indexOf(0x20, first + 1);
    const seconds = Number(record.subarray(0, first).toString('latin1'));
    const nanoseconds = Number(record.subarray(first + 1, second).toString('latin1'));
    // Node's own formula for `mtimeMs`, so the times equal `statSync`'s.
    times[index] = seconds * 1e3 + nanoseconds / 1e6;
    paths.push(record.subarray(second + 1).toString('utf8'));
  }
  return { stamped: { paths, times }, listed: Number(trailer[1]), exitCode: Number(trailer[2]) };
}

/** What one request is waiting for: the answer's trailer on stdout and the NUL that ends its stderr. */
interface Pending {
  prefix: string;
  chunks: Buffer[];
  /** Where the next record of the answer starts, counted over `chunks`. */
  scanned: number;
  answered: boolean;
  stderr: string;
  stderrDone: boolean;
  aborted: boolean;
  settle: (result: PerlNewest | undefined | Error) => void;
}

/**
 * One kept perl process running {@link helperScript}, answering one request at a time. It never keeps
 * efferent's process alive: its pipes are referenced only while a request is in flight, and it ends
 * when its stdin closes (with efferent).
 */
class StatHelper {
  private readonly child: ChildProcessWithoutNullStreams;
  private pending: Pending | undefined;
  dead = false;

  constructor(perl: string, syscall: number) {
    this.child = spawn(perl, ['-e', helperScript, String(syscall)], {
      env: helperEnv(process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk));
    this.child.stdin.on('error', () => {});
    this.child.on('error', () => this.onExit());
    this.child.on('close', () => this.onExit());
    this.setReferenced(false);
  }

  private setReferenced(referenced: boolean): void {
    // The pipes are sockets, which can be unreferenced like the process.
    const pipes = [this.child.stdin, this.child.stdout, this.child.stderr] as unknown as Array<{
      ref(): void;
      unref(): void;
    }>;
    for (const handle of [this.child, ...pipes]) {
      if (referenced) handle.ref();
      else handle.unref();
    }
  }

  request(fields: readonly string[], prefix: string, signal?: AbortSignal): Promise<PerlNewest | undefined> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending) return;
        this.pending.aborted = true;
        // The helper kills the lister and exits; the request settles when it has.
        this.child.kill('SIGTERM');
      };
      this.pending = {
        prefix,
        chunks: [],
        scanned: 0,
        answered: false,
        stderr: '',
        stderrDone: false,
        aborted: false,
        settle: (result) => {
          signal?.removeEventListener('abort', onAbort);
          this.pending = undefined;
          if (!this.dead) this.setReferenced(false);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.setReferenced(true);
      const message = [String(fields.length), ...fields].map((field) => `${field}\0`).join('');
      this.child.stdin.write(message);
    });
  }

  private onStdout(chunk: Buffer): void {
    const pending = this.pending;
    if (!pending) return;
    pending.chunks.push(chunk);
    const output = pending.chunks.length === 1 ? chunk : Buffer.concat(pending.chunks);
    pending.chunks = [output];
    // Records end with NUL; the trailer is the one record that starts with `#`.
    for (let end = output.indexOf(0, pending.scanned); end !== -1; end = output.indexOf(0, pending.scanned)) {
      const first = output[pending.scanned];
      pending.scanned = end + 1;
      if (first === 0x23) {
        pending.answered = true;
        break;
      }
    }
    this.finishIfDone();
  }

  private onStderr(chunk: Buffer): void {
    const pending = this.pending;
    if (!pending) return;
    const end = chunk.indexOf(0);
    const text = (end === -1 ? chunk : chunk.subarray(0, end)).toString('utf8');
    if (pending.stderr.length < maxStderr) pending.stderr += text.slice(0, maxStderr - pending.stderr.length);
    if (end !== -1) pending.stderrDone = true;
    this.finishIfDone();
  }

  private finishIfDone(): void {
    const pending = this.pending;
    if (!pending?.answered || !pending.stderrDone || pending.aborted) return;
    try {
      const output = (pending.chunks[0] ?? Buffer.alloc(0)).subarray(0, pending.scanned);
      pending.settle({ ...parseHelperOutput(output, pending.prefix), stderr: pending.stderr });
    } catch {
      pending.settle(undefined);
    }
  }

  private onExit(): void {
    this.dead = true;
    const pending = this.pending;
    if (!pending) return;
    pending.settle(pending.aborted ? new Error('aborted') : undefined);
  }

  /** Ends the helper (it exits when its stdin closes). */
  close(): void {
    this.child.stdin.end();
  }
}

/** Helpers with no request in flight, for reuse; one more starts for each request made meanwhile. */
const idleHelpers = new Map<string, StatHelper[]>();

/** Idle helpers kept per perl; more than that are closed when their request ends. */
const maxIdleHelpers = 2;

function takeHelper(perl: string, syscall: number): StatHelper {
  const idle = idleHelpers.get(perl) ?? [];
  idleHelpers.set(perl, idle);
  for (let helper = idle.pop(); helper; helper = idle.pop()) if (!helper.dead) return helper;
  return new StatHelper(perl, syscall);
}

function returnHelper(perl: string, helper: StatHelper): void {
  if (helper.dead) return;
  const idle = idleHelpers.get(perl) ?? [];
  if (idle.length >= maxIdleHelpers) helper.close();
  else idle.push(helper);
}

/** The environment for the lister: as given, less perl's own settings and ripgrep's config file. */
function listerEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(helperEnv(env))
    .filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].includes('='))
    .map(([name, value]) => `${name}=${value}`)
    .filter((entry) => !entry.includes('\0'));
}

/**
 * Runs the lister through the system's perl, which stats every path it prints and hands back only
 * those that can be among the newest `limit` (see {@link helperScript}); the caller merges them in
 * JavaScript's order. The perl process is kept for later calls, so a call costs one process start
 * (the lister's), as running the lister directly would. Resolves to undefined when the helper cannot
 * do it here (its self-check failed, the lister could not start, perl failed), so the caller can list
 * and stat another way. Rejects when the signal aborts.
 */
export async function newestThroughPerl(options: PerlNewestOptions): Promise<PerlNewest | undefined> {
  options.signal?.throwIfAborted();
  const syscall = statSyscall[process.arch];
  const prefix = options.root.endsWith(sep) ? options.root : options.root + sep;
  const stamp = rootTime(prefix);
  if (syscall === undefined || !stamp) return undefined;
  const env = listerEnv(options.env ?? process.env);
  const fields = [
    prefix,
    ...stamp,
    options.separator === '\n' ? 'newline' : 'nul',
    String(env.length),
    String(options.limit),
    ...env,
    ...options.command,
  ];
  if (fields.some((field) => field.includes('\0'))) return undefined;
  const helper = takeHelper(options.perl, syscall);
  try {
    return await helper.request(fields, prefix, options.signal);
  } catch (error) {
    options.signal?.throwIfAborted();
    throw error;
  } finally {
    returnHelper(options.perl, helper);
  }
}
