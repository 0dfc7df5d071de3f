import { accessSync, constants, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { isAbsolute, sep } from 'node:path';
import { mtimeOf } from './newest-first.ts';
import type { StampedPaths } from './stat-pool.ts';

/**
 * The program the system's perl runs between a lister and efferent: it starts the lister (`@ARGV`
 * after the first six arguments), reads its NUL-separated paths, stats each one with the
 * `newfstatat` system call (the numbers Node's `statSync` gives, without Node's per-call cost) and
 * prints only the records that can be among the newest `limit`, then a trailer.
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
 * Before reading, it checks that the system call reads the layout it expects: the root's time must
 * match the one efferent passes in (exit 125 otherwise). Exit 126: the lister could not start.
 * SIGTERM ends the lister too. Output records: `SEC NSEC PATH\0`, `- PATH\0` (no time), and last
 * `? PATH\0` (not UTF-8), and last `#COUNT STATUS\0` (paths read, the lister's exit code or 128 + signal).
 */
const helperScript = String.raw`
use strict;
my ($prefix, $limit, $nr, $root_sec, $root_nsec, $sep) = splice @ARGV, 0, 6;
my $buf = "\0" x 256;
my $oldest = -9**9**9;
sub stamp {
  return () unless syscall($nr, -100, $_[0], $buf, 0) == 0;
  return unpack('q q', substr($buf, 88, 16));
}
{
  my ($sec, $nsec) = length(pack('F', 0)) == 8 ? stamp($prefix) : ();
  exit 125 unless defined $sec && $sec == $root_sec && $nsec == $root_nsec;
}
my $pid = open(my $list, '-|', @ARGV);
if (!$pid) { print STDERR "efferent: could not start $ARGV[0]: $!\n"; exit 126; }
$SIG{TERM} = sub { kill 'KILL', $pid; exit 143; };
sub before { $b->[0] <=> $a->[0] || $a->[1] <=> $b->[1] || $a->[2] cmp $b->[2] }
my @kept;
my $floor = $oldest;
my $hold = 2 * $limit + 256;
sub trim {
  @kept = sort before @kept;
  return if @kept <= $limit;
  my $last = $kept[$limit - 1][0];
  my @ties = grep { $_->[0] == $last && $_->[1] } @kept[$limit .. $#kept];
  splice @kept, $limit;
  push @kept, @ties;
  $floor = $last;
  $hold = 2 * @kept + 256 if 2 * @kept + 256 > $hold;
}
my $utf8 = qr/\A(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})*\z/;
my $odd = '';
local $/ = $sep eq 'newline' ? "\n" : "\0";
my $count = 0;
while (my $path = <$list>) {
  chomp $path;
  $path = substr($path, 2) if substr($path, 0, 2) eq './';
  $count++;
  if ($path =~ /[\x80-\xff]/ && $path !~ $utf8) { $odd .= "? $path\0"; next; }
  my ($sec, $nsec) = stamp(substr($path, 0, 1) eq '/' ? $path : $prefix . $path);
  my $time = defined $sec ? $sec * 1000 + $nsec / 1e6 : $oldest;
  next if $time < $floor;
  push @kept, [$time, $path =~ /[\x80-\xff]/ ? 1 : 0, $path, $sec, $nsec];
  trim() if @kept > $hold;
}
close $list;
my $status = $? == -1 ? 255 : ($? & 127) ? 128 + ($? & 127) : $? >> 8;
trim();
binmode STDOUT;
for my $entry (@kept) {
  print defined $entry->[3] ? "$entry->[3] $entry->[4] $entry->[2]\0" : "- $entry->[2]\0";
}
print $odd, "#$count $status\0";
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

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

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

/**
 * Runs the lister under the system's perl, which stats every path it prints and hands back only
 * those that can be among the newest `limit` (see {@link helperScript}); the caller merges them in
 * JavaScript's order. Resolves to undefined when the helper cannot run here (its self-check failed,
 * the lister could not start, perl failed), so the caller can list and stat another way. Rejects
 * when the signal aborts.
 */
export function newestThroughPerl(options: PerlNewestOptions): Promise<PerlNewest | undefined> {
  const syscall = statSyscall[process.arch];
  const prefix = options.root.endsWith(sep) ? options.root : options.root + sep;
  const stamp = rootTime(prefix);
  if (syscall === undefined || !stamp) return Promise.resolve(undefined);
  const args = [
    '-e',
    helperScript,
    prefix,
    String(options.limit),
    String(syscall),
    ...stamp,
    options.separator === '\n' ? 'newline' : 'nul',
    ...options.command,
  ];
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child = spawn(options.perl, args, {
      cwd: options.root,
      env: helperEnv(options.env ?? process.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    const onAbort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < maxStderr) stderr += chunk.slice(0, maxStderr - stderr.length);
    });
    child.on('error', () => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve(undefined);
    });
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      if (code !== 0) {
        resolve(undefined);
        return;
      }
      try {
        resolve({ ...parseHelperOutput(Buffer.concat(chunks), prefix), stderr });
      } catch {
        resolve(undefined);
      }
    });
  });
}
