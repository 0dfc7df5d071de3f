/**
 * efferent's sandbox against the reference runtime, Anthropic's `@anthropic-ai/sandbox-runtime`
 * ("srt"), on Linux with bwrap: the same policy (write the project only, a denied file, an
 * allowlist), the same escape attempts and the same timings, side by side in one run.
 *
 * srt needs Node >= 22.12 and is not a dependency of efferent: install it into a scratch folder
 * (`npm i --prefix ~/.cache/efferent-srt @anthropic-ai/sandbox-runtime`) and point
 * EFFERENT_SRT_DIR (default ~/.cache/efferent-srt) and EFFERENT_SRT_NODE (default: the Node 22 of
 * .ci/run, then `node`) at it; without it srt's side is skipped with the reason. srt needs socat
 * on Linux; without one on PATH the bench compiles bench/socat-standin.c (the two address pairs
 * srt uses) into that folder with `cc` and says so. srt runs as its CLI, one process per command.
 * `npm run bench -- sandbox-vs-srt [--json] [--runs=N]`
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createToolUseContext } from '../src/core/index.ts';
import { sandboxConfigurationKey } from '../src/sandbox/config.ts';
import type { NetworkPolicy } from '../src/sandbox/network/network-policy.ts';
import { probeSandbox } from '../src/sandbox/sandbox.ts';
import { createBashTool } from '../src/tools/bash/bash.ts';
import type { ShellOutput } from '../src/tools/shared/process/shell-output.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
// `--runs=N` (what `npm run bench` passes through) or `--runs N`.
const runsAt = args.findIndex((arg) => arg.startsWith('--runs'));
const runs = runsAt === -1 ? 10 : Number(args[runsAt]?.split('=')[1] ?? args[runsAt + 1]);
const run = promisify(execFile);

const availability = probeSandbox();
if (!availability.available) {
  console.log(`skipped: ${availability.reason}`);
  process.exit(0);
}

// The scene: a project the command may write, a denied file in it, a folder beside it, a loopback
// HTTP server answering with a marker, and a host Unix socket answering with the same marker.
const marker = `reached-${randomBytes(6).toString('hex')}`;
const base = realpathSync(mkdtempSync('/tmp/efferent-vs-srt-'));
const project = join(base, 'project');
const outside = join(base, 'outside');
for (const folder of [project, outside, join(base, 'home'), join(base, 'session')]) mkdirSync(folder);
const secret = join(project, 'secret.env');
writeFileSync(secret, `TOKEN=${marker}\n`);
const hostTmpFile = `/tmp/efferent-vs-srt-escape-${process.pid}`;
const server = createServer((_request, response) => response.end(marker));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
const unixSocket = join(base, 'host.sock');
const unixServer = createNetServer((socket) => socket.end(marker));
await new Promise<void>((resolve) => unixServer.listen(unixSocket, resolve));

/** One attempt: the command, and how to tell from its output (or the host) that it got out. */
interface Attempt {
  name: string;
  command: string;
  /** Which network policy it runs under: `deny` lists allowed.example only, `loopback-name` adds localhost. */
  network: 'deny' | 'loopback-name';
  escaped: (stdout: string) => boolean;
}

const curl = (url: string, extra = "--noproxy ''") => `curl -sS -m 15 ${extra} ${url}`;
const attempts: Attempt[] = [
  {
    name: 'read a denied file (cat)',
    command: `cat ${secret}`,
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'read a denied file (python open)',
    command: `python3 -c 'print(open("${secret}").read())'`,
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'read a denied file (xargs cat)',
    command: `echo ${secret} | xargs cat`,
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'write beside the project',
    command: `echo x > ${join(outside, 'escaped.txt')}`,
    network: 'deny',
    escaped: () => existsSync(join(outside, 'escaped.txt')),
  },
  {
    name: "write the host's /tmp",
    command: `echo x > ${hostTmpFile}`,
    network: 'deny',
    escaped: () => existsSync(hostTmpFile),
  },
  {
    name: 'write .git/hooks in the project',
    command: 'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit',
    network: 'deny',
    escaped: () => existsSync(join(project, '.git', 'hooks', 'pre-commit')),
  },
  {
    name: 'create .git/config in a project without a repository',
    command: 'mkdir -p .git && printf "[core]\\n\\tfsmonitor = touch pwned\\n" > .git/config',
    network: 'deny',
    escaped: () => existsSync(join(project, '.git', 'config')),
  },
  {
    name: 'reach a name not on the allowlist (proxy)',
    command: curl(`http://localhost:${port}/`),
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'reach loopback by IP through the proxy',
    command: curl(`http://127.0.0.1:${port}/`),
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'reach loopback directly (no proxy)',
    command: curl(`http://127.0.0.1:${port}/`, "--noproxy '*'"),
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'reach loopback as ::ffff:127.0.0.1',
    command: curl(`'http://[::ffff:127.0.0.1]:${port}/'`),
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'reach loopback through an allowed name (localhost allowed)',
    command: curl(`http://localhost:${port}/`),
    network: 'loopback-name',
    escaped: (out) => out.includes(marker),
  },
  {
    name: 'connect to a host Unix socket',
    command: `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${unixSocket}"); print(s.recv(100).decode())'`,
    network: 'deny',
    escaped: (out) => out.includes(marker),
  },
];

const allowedDomains = { deny: ['allowed.example'], 'loopback-name': ['allowed.example', 'localhost'] };

// efferent: the Bash tool, as a session runs it (a proxy per call, the relay inside bwrap).
async function efferentRun(command: string, network: NetworkPolicy | undefined): Promise<string> {
  const context = createToolUseContext({
    cwd: project,
    sessionDir: join(base, 'session'),
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(base, 'home') },
  });
  const holder = context.run.resources?.get(sandboxConfigurationKey);
  if (holder) holder.configuration = { denyRead: [secret], ...(network ? { network } : {}) };
  const bash = createBashTool({ sandbox: 'required' });
  try {
    const input = bash.inputSchema.parse({ command, timeout: 120_000 });
    const result = await bash.call(
      input,
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      'toolu_bench',
    );
    const data = result.data as ShellOutput;
    return `${data.stdout}\n${data.stderr}`;
  } finally {
    await context.run.resources?.dispose();
  }
}

// srt: its CLI under Node 22, with a settings file for the same policy.
const srtDir = process.env['EFFERENT_SRT_DIR'] ?? join(homedir(), '.cache', 'efferent-srt');
const srtCli = join(srtDir, 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'dist', 'cli.js');
const node22Default = join(
  homedir(),
  '.cache',
  'efferent-ci',
  'node22',
  'node_modules',
  `node-${process.platform}-${process.arch}`,
  'bin',
  'node',
);
const srtNode = process.env['EFFERENT_SRT_NODE'] ?? (existsSync(node22Default) ? node22Default : 'node');
let srtSkip: string | undefined;
let socatNote = 'socat from PATH';
let socatPath: string | undefined;
if (!existsSync(srtCli))
  srtSkip = `srt is not installed in ${srtDir} (npm i --prefix ${srtDir} @anthropic-ai/sandbox-runtime)`;
else {
  const version = spawnSync(srtNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 12))
    srtSkip = `srt needs Node >= 22.12; ${srtNode} is ${version || 'missing'} (set EFFERENT_SRT_NODE)`;
  else if (spawnSync('sh', ['-c', 'command -v socat']).status !== 0) {
    socatPath = join(base, 'socat-standin');
    const source = join(dirname(new URL(import.meta.url).pathname), 'socat-standin.c');
    mkdirSync(dirname(socatPath), { recursive: true });
    const built = spawnSync('cc', ['-O2', '-o', socatPath, source], { encoding: 'utf8' });
    if (built.status !== 0)
      srtSkip = `srt needs socat, which is missing, and bench/socat-standin.c did not build (${built.stderr.trim()})`;
    socatNote = `socat stand-in ${socatPath} (compiled from bench/socat-standin.c)`;
  }
}

function srtSettings(network: Attempt['network']): string {
  const path = join(base, `srt-${network}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      network: { allowedDomains: allowedDomains[network], deniedDomains: [] },
      filesystem: { denyRead: [secret], allowWrite: [project], denyWrite: [] },
      ...(socatPath ? { socatPath } : {}),
    }),
  );
  return path;
}

async function srtRun(command: string, network: Attempt['network']): Promise<string> {
  try {
    const { stdout, stderr } = await run(
      srtNode,
      [srtCli, '--settings', srtSettings(network), '-c', command],
      {
        cwd: project,
        timeout: 120_000,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(base, 'home') },
      },
    );
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}\n${failed.stderr ?? ''}`;
  }
}

function reset(): void {
  rmSync(join(outside, 'escaped.txt'), { force: true });
  rmSync(hostTmpFile, { force: true });
  rmSync(join(project, '.git'), { recursive: true, force: true });
}

type Verdict = 'blocked' | 'ESCAPED' | 'skipped';
const results: Array<{ attempt: string; efferent: Verdict; srt: Verdict }> = [];
for (const attempt of attempts) {
  if (!json) process.stderr.write(`${attempt.name}…\n`);
  reset();
  const efferentOut = await efferentRun(attempt.command, { allowedDomains: allowedDomains[attempt.network] });
  const efferent: Verdict = attempt.escaped(efferentOut) ? 'ESCAPED' : 'blocked';
  reset();
  let srt: Verdict = 'skipped';
  if (!srtSkip) srt = attempt.escaped(await srtRun(attempt.command, attempt.network)) ? 'ESCAPED' : 'blocked';
  results.push({ attempt: attempt.name, efferent, srt });
}
reset();

// Timings: a trivial command (whole call), and curl through the proxy to the loopback server
// (timed by curl inside: process start-up excluded). efferent reaches the server through a test
// resolver entry (it refuses names resolving to loopback otherwise); srt through the allowed name.
type Row = { label: string; efferentMs: number; srtMs?: number };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
async function timed(count: number, action: () => Promise<unknown>): Promise<number> {
  await action();
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await action();
    times.push(performance.now() - start);
  }
  return median(times);
}
const loopbackForEfferent: NetworkPolicy = {
  allowedDomains: ['localhost'],
  hostOverrides: { localhost: '127.0.0.1' },
};
const curlLoop = `for i in $(seq ${runs}); do curl -s -o /dev/null -w '%{time_total}\\n' --noproxy '' http://localhost:${port}/; done`;
const curlMedian = (output: string) =>
  median(
    output
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((value) => Number.isFinite(value) && value > 0)
      .map((seconds) => seconds * 1000),
  );
const rows: Row[] = [];
const trivialRuns = Math.max(3, Math.floor(runs / 2));
if (!json) process.stderr.write('timings…\n');
rows.push({
  label: 'Node start-up alone (node -e 0, the srt CLI runs on it)',
  efferentMs: await timed(trivialRuns, () => run(process.execPath, ['-e', '0'])),
  ...(srtSkip ? {} : { srtMs: await timed(trivialRuns, () => run(srtNode, ['-e', '0'])) }),
});
rows.push({
  label: '`true`, no network (efferent: Bash call; srt: CLI)',
  efferentMs: await timed(trivialRuns, () => efferentRun('true', undefined)),
  ...(srtSkip ? {} : { srtMs: await timed(trivialRuns, () => srtRun('true', 'deny')) }),
});
rows.push({
  label: '`true`, behind the proxies',
  efferentMs: await timed(trivialRuns, () => efferentRun('true', { allowedDomains: ['allowed.example'] })),
  ...(srtSkip ? {} : { srtMs: await timed(trivialRuns, () => srtRun('true', 'deny')) }),
});
rows.push({
  label: `curl → proxy → loopback server, median of ${runs} requests`,
  efferentMs: curlMedian(await efferentRun(curlLoop, loopbackForEfferent)),
  ...(srtSkip ? {} : { srtMs: curlMedian(await srtRun(curlLoop, 'loopback-name')) }),
});

server.close();
unixServer.close();
rmSync(base, { recursive: true, force: true });

if (json) console.log(JSON.stringify({ srtSkip, socat: socatNote, results, rows }, null, 2));
else {
  if (srtSkip) console.log(`srt side skipped: ${srtSkip}.`);
  else console.log(`srt: ${srtCli} on ${srtNode}; ${socatNote}`);
  console.log('\nescape attempt | efferent | srt');
  for (const result of results) console.log(`${result.attempt} | ${result.efferent} | ${result.srt}`);
  console.log('\ntiming (median) | efferent | srt');
  for (const row of rows)
    console.log(
      `${row.label} | ${row.efferentMs.toFixed(1)} ms | ${row.srtMs === undefined ? 'skipped' : `${row.srtMs.toFixed(1)} ms (×${(row.srtMs / row.efferentMs).toFixed(2)})`}`,
    );
}
