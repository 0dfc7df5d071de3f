/**
 * What the sandbox's network path costs against a direct connection to the same loopback server:
 * latency per request and time per MB, first for the host-side proxy alone (HTTP absolute-form and
 * CONNECT through its Unix socket), then end to end from inside bwrap (curl → relay → IPC-passed
 * socket → proxy → server) against curl on the host, and the start-up cost the relay adds to a
 * sandboxed command. Side by side in one run.
 * `npx tsx bench/sandbox-network.ts [--json] [--runs N] [--mb N]`
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxProxy } from '../src/sandbox/network/proxy.ts';
import { buildSandboxInvocation, probeSandbox } from '../src/sandbox/sandbox.ts';
import { ShellRun } from '../src/tools/shared/process/shell-run.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const option = (name: string, fallback: number) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const runs = option('--runs', 40);
const megabytes = option('--mb', 64);

const chunk = Buffer.alloc(1024 * 1024, 'x');
const server = createServer((req, res) => {
  if (req.url === '/big') {
    res.setHeader('content-length', String(megabytes * chunk.length));
    let sent = 0;
    const pump = () => {
      while (sent < megabytes) {
        sent += 1;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  } else res.end('ok');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
const proxy = await SandboxProxy.start({
  allowedDomains: ['bench.test'],
  hostOverrides: { 'bench.test': '127.0.0.1' },
});

type Row = { label: string; medianMs: number; p90Ms: number; ratio?: number };

async function measure(label: string, count: number, action: () => Promise<unknown>): Promise<Row> {
  if (!json) process.stderr.write(`${label}…\n`);
  for (let index = 0; index < Math.min(3, count); index++) await action();
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await action();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { label, medianMs: at(0.5), p90Ms: at(0.9) };
}

/** GET `path`, directly or as an absolute-form request to the proxy's socket; resolves with the byte count. */
function get(path: string, via: 'direct' | 'proxy'): Promise<number> {
  return new Promise((resolve, reject) => {
    const options =
      via === 'direct'
        ? { host: '127.0.0.1', port, path, agent: false }
        : {
            socketPath: proxy.socketPath,
            path: `http://bench.test:${port}${path}`,
            headers: { host: `bench.test:${port}` },
            agent: false,
          };
    const req = request(options, (res) => {
      let bytes = 0;
      res.on('data', (data: Buffer) => {
        bytes += data.length;
      });
      res.on('end', () => resolve(bytes));
      // A connection closed before the whole body arrived fails the bench instead of hanging it.
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error(`${path} via ${via}: the response ended after ${bytes} bytes`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET through a CONNECT tunnel on the proxy's socket (what HTTPS clients do). */
function getTunnelled(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socketPath);
    socket.once('error', reject);
    socket.write(`CONNECT bench.test:${port} HTTP/1.1\r\nHost: bench.test:${port}\r\n\r\n`);
    let head = '';
    let bytes = -1;
    socket.on('data', (data: Buffer) => {
      if (bytes < 0) {
        head += data.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head));
        bytes = 0;
        if (head.length > end + 4) bytes += head.length - end - 4;
        if (head.includes('HTTP/1.1 200 Connection Established')) {
          head = '';
          socket.write(`GET ${path} HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n`);
        }
        return;
      }
      bytes += data.length;
    });
    socket.once('close', () => resolve(bytes));
  });
}

const rows: Row[] = [];
const pair = (direct: Row, proxied: Row) => {
  proxied.ratio = proxied.medianMs / direct.medianMs;
  rows.push(direct, proxied);
};

// 1. The host-side proxy alone.
pair(
  await measure('small request, direct', runs, () => get('/small', 'direct')),
  await measure('small request, proxy (absolute-form)', runs, () => get('/small', 'proxy')),
);
rows.push(await measure('small request, proxy (CONNECT tunnel)', runs, () => getTunnelled('/small')));
const bigRuns = Math.max(3, Math.floor(runs / 8));
pair(
  await measure(`${megabytes} MB, direct`, bigRuns, () => get('/big', 'direct')),
  await measure(`${megabytes} MB, proxy (absolute-form)`, bigRuns, () => get('/big', 'proxy')),
);
rows.push(await measure(`${megabytes} MB, proxy (CONNECT tunnel)`, bigRuns, () => getTunnelled('/big')));

// 2. End to end from inside the sandbox, timed by curl itself (process start-up excluded).
const availability = probeSandbox();
if (availability.available) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-net-')));
  const curlTimes = (url: string, count: number) =>
    `for i in $(seq ${count}); do curl -s -o /dev/null -w '%{time_total}\\n' ${url}; done`;
  const inSandbox = async (script: string): Promise<string> => {
    const invocation = buildSandboxInvocation(
      {
        writableDirectories: [base],
        sessionDirectory: base,
        homeDirectory: base,
        allowNetwork: false,
        networkProxy: true,
      },
      base,
      ['bash', '-c', script],
    );
    const run = new ShellRun({
      file: invocation.file,
      args: invocation.args,
      cwd: base,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      stdoutPath: join(base, 'out'),
      stderrPath: join(base, 'err'),
      inheritedFds: invocation.inheritedFds,
      onSpawnWithIpc: (child) => proxy.attach(child),
    });
    await run.exited;
    invocation.cleanup();
    return readFileSync(join(base, 'out'), 'utf8');
  };
  // Asynchronous: the server answering curl runs in this process.
  const hostCurl = async (script: string) => (await promisify(execFile)('bash', ['-c', script])).stdout;
  const fromCurl = (label: string, output: string): Row => {
    const times = output
      .trim()
      .split('\n')
      .map((line) => Number(line) * 1000)
      .sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
    return { label, medianMs: at(0.5), p90Ms: at(0.9) };
  };
  pair(
    fromCurl(
      'curl small request, host direct',
      await hostCurl(curlTimes(`http://127.0.0.1:${port}/small`, runs)),
    ),
    fromCurl(
      'curl small request, sandbox → relay → proxy',
      await inSandbox(curlTimes(`http://bench.test:${port}/small`, runs)),
    ),
  );
  pair(
    fromCurl(
      `curl ${megabytes} MB, host direct`,
      await hostCurl(curlTimes(`http://127.0.0.1:${port}/big`, bigRuns)),
    ),
    fromCurl(
      `curl ${megabytes} MB, sandbox → relay → proxy`,
      await inSandbox(curlTimes(`http://bench.test:${port}/big`, bigRuns)),
    ),
  );

  // 3. What the relay adds to every sandboxed command when a network allowlist is set.
  const startRuns = Math.max(5, Math.floor(runs / 4));
  const runTrue = async (networkProxy: boolean) => {
    const invocation = buildSandboxInvocation(
      {
        writableDirectories: [base],
        sessionDirectory: base,
        homeDirectory: base,
        allowNetwork: false,
        networkProxy,
      },
      base,
      ['true'],
    );
    const run = new ShellRun({
      file: invocation.file,
      args: invocation.args,
      cwd: base,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      stdoutPath: join(base, 'out'),
      stderrPath: join(base, 'err'),
      inheritedFds: invocation.inheritedFds,
      ...(networkProxy
        ? { onSpawnWithIpc: (child: import('node:child_process').ChildProcess) => proxy.attach(child) }
        : {}),
    });
    await run.exited;
    invocation.cleanup();
  };
  pair(
    await measure('sandboxed `true`, no network', startRuns, () => runTrue(false)),
    await measure('sandboxed `true`, behind the relay', startRuns, () => runTrue(true)),
  );
  rmSync(base, { recursive: true, force: true });
}

await proxy.close();
server.close();

if (json) console.log(JSON.stringify(rows, null, 2));
else {
  for (const row of rows) {
    const perMb = row.label.includes(' MB') ? `, ${(row.medianMs / megabytes).toFixed(2)} ms/MB` : '';
    const ratio = row.ratio === undefined ? '' : `  (×${row.ratio.toFixed(2)} of the line above)`;
    console.log(
      `${row.label}: median ${row.medianMs.toFixed(2)} ms, p90 ${row.p90Ms.toFixed(2)} ms${perMb}${ratio}`,
    );
  }
  if (!availability.available) console.log(`(sandbox rows skipped: ${availability.reason})`);
}
