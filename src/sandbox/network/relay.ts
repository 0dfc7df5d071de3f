/**
 * The relay that runs first inside a network-less sandbox: it listens on the sandbox's own loopback
 * (HTTP proxy port and SOCKS5 port), starts the real command, and for each connection it accepts
 * asks efferent, over the IPC channel it inherited, for a socket already connected to the host-side
 * proxy ({@link SandboxProxy.attach}). No socket is created inside the sandbox that could reach a
 * host file, so the seccomp filter that refuses `socket(AF_UNIX)` stays on. It exits with the
 * command's status; the PID namespace ends it with the command in every other case.
 */

/** Loopback ports inside the sandbox (its network namespace is private, so they never clash). */
export const relayPorts = { http: 3128, socks: 1080 } as const;

/** CommonJS source run with `node -e`; arguments: http port, socks port, the command's argv. */
export const relaySource = `'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [httpPort, socksPort, file, ...args] = process.argv.slice(1);
if (typeof process.send !== 'function') {
  process.stderr.write('efferent sandbox: the network relay has no channel to the proxy; nothing was run.\\n');
  process.exit(126);
}
const pending = new Map();
let next = 0;
process.on('message', (message, handle) => {
  if (!message || typeof message !== 'object') return;
  if (message.t === 'b') return void process.stderr.write(message.line + '\\n');
  if (message.t !== 's') return;
  const client = pending.get(message.id);
  pending.delete(message.id);
  if (!client) return void (handle && handle.destroy());
  if (!handle) return void client.destroy();
  handle.on('error', () => client.destroy());
  client.pipe(handle);
  handle.pipe(client);
  // A side that ended cleanly lets the other finish writing what it already read, then close;
  // destroying it at once would cut off the tail of a download.
  const closeAfter = (from, to) => from.once('close', (hadError) => {
    if (hadError || !from.readableEnded || to.writableFinished) return void to.destroy();
    to.once('finish', () => to.destroy());
    to.end();
  });
  closeAfter(client, handle);
  closeAfter(handle, client);
});
const accept = (client) => {
  const id = ++next;
  client.on('error', () => client.destroy());
  client.pause();
  pending.set(id, client);
  process.send({ t: 'c', id });
};
let listening = 0;
const start = () => {
  if (++listening < 2) return;
  const env = { ...process.env };
  delete env.NODE_CHANNEL_FD;
  delete env.NODE_CHANNEL_SERIALIZATION_MODE;
  const child = spawn(file, args, { stdio: 'inherit', env });
  child.once('error', (error) => {
    process.stderr.write('efferent sandbox: could not start ' + file + ': ' + error.message + '\\n');
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    process.exit(code === null ? 128 + (constants.signals[signal] || 1) : code);
  });
};
for (const port of [httpPort, socksPort]) {
  const server = net.createServer(accept);
  server.once('error', (error) => {
    process.stderr.write('efferent sandbox: the network relay could not listen: ' + error.message + '\\n');
    process.exit(126);
  });
  server.listen(Number(port), '127.0.0.1', start);
}
`;

/** The argv that runs `command` behind the relay, with this process's Node. */
export function relayCommand(command: readonly string[], node: string = process.execPath): string[] {
  return [node, '-e', relaySource, String(relayPorts.http), String(relayPorts.socks), ...command];
}

/**
 * The variables that point common tools at the relay: curl, wget, git (through curl), pip, npm,
 * yarn, Python requests, Node 22+'s fetch with NODE_USE_ENV_PROXY, and `ALL_PROXY` (SOCKS5 with
 * remote resolution) for what speaks only SOCKS. Loopback inside the sandbox is never proxied.
 */
export function proxyEnvironment(
  ports: { readonly http: number; readonly socks: number } = relayPorts,
): Record<string, string> {
  const http = `http://127.0.0.1:${ports.http}`;
  const socks = `socks5h://127.0.0.1:${ports.socks}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    npm_config_noproxy: noProxy,
    YARN_HTTP_PROXY: http,
    YARN_HTTPS_PROXY: http,
    PIP_PROXY: http,
    NODE_USE_ENV_PROXY: '1',
    EFFERENT_SANDBOX_PROXY: http,
  };
}
