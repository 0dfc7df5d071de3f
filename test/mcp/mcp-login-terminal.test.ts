import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEfferent } from '../cli/run-efferent.ts';
import { type OAuthMcpServer, startOAuthMcpServer } from './fixtures/oauth-mcp-server.ts';

// `efferent mcp login` under a real pseudo-terminal: util-linux `script` gives the CLI a tty for
// stdin, stdout and stderr, and a Ctrl-C byte written to it becomes SIGINT through the line
// discipline, as when a user presses the keys.

const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'efferent.js');
let root: string;
let project: string;
let home: string;
let configDir: string;
let server: OAuthMcpServer;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-login-tty-')));
  project = join(root, 'project');
  home = join(root, 'home');
  configDir = join(root, 'config');
  await mkdir(project, { recursive: true });
  await mkdir(join(home, '.efferent'), { recursive: true });
  server = await startOAuthMcpServer();
  await writeFile(
    join(home, '.efferent', 'settings.json'),
    JSON.stringify({ mcpServers: { secure: { type: 'http', url: server.url } } }),
  );
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

interface TerminalRun {
  child: ChildProcessWithoutNullStreams;
  /** Everything the terminal showed so far, carriage returns removed. */
  screen: () => string;
  /** Resolves once the screen matches. */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

function loginInTerminal(): TerminalRun {
  const command = [process.execPath, bin, 'mcp', 'login', 'secure'].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: project,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      TERM: 'xterm-256color',
      EFFERENT_CONFIG_DIR: configDir,
    },
  });
  let shown = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    shown += chunk.toString().replaceAll('\r', '');
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((found, failed) => {
      const check = () => {
        const match = pattern.exec(shown);
        if (!match) return;
        listeners.delete(check);
        found(match);
      };
      listeners.add(check);
      check();
      void exited.then(() => {
        if (listeners.delete(check))
          failed(new Error(`the login ended before showing ${pattern}:\n${shown}`));
      });
    });
  return { child, screen: () => shown, waitFor, exited };
}

const storeDir = () => join(configDir, 'mcp-auth');

describe('efferent mcp login in a real terminal', () => {
  it('shows each step, stores the tokens 0600, and a later call uses them', async () => {
    const terminal = loginInTerminal();
    const url = (await terminal.waitFor(/^ {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m))[1] as string;
    const waiting = await terminal.waitFor(
      /^Waiting for the browser to come back to (http:\/\/127\.0\.0\.1:\d+\/callback) \(Ctrl-C cancels; gives up after 5 min\)\.\.\.$/m,
    );
    // The browser: the authorization server redirects to efferent's loopback callback.
    const authorize = await fetch(url, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const callback = authorize.headers.get('location') ?? '';
    expect(callback.startsWith(`${waiting[1]}?code=`)).toBe(true);
    const back = await fetch(callback);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('efferent is authorized');
    expect(await terminal.exited).toBe(0);

    const lines = terminal
      .screen()
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('  http'));
    expect(lines).toEqual([
      'Open this URL to authorize efferent with "secure":',
      expect.stringMatching(/^Waiting for the browser/),
      'Authorization received; requesting tokens...',
      `Authorized with MCP server "secure"; tokens are stored in ${storeDir()}.`,
    ]);

    const files = await readdir(storeDir());
    expect(files).toHaveLength(1);
    const file = join(storeDir(), files[0] as string);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(storeDir())).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored.tokens.access_token).toEqual(expect.any(String));

    const clientId = [...server.provider.clients.keys()][0];
    const call = await runEfferent(
      ['call', 'mcp__secure__whoami', '{}', '--allowedTools', 'mcp__secure'],
      project,
      home,
      { EFFERENT_CONFIG_DIR: configDir },
    );
    expect(call.stderr).not.toContain('needs authorization');
    expect(call.stdout).toContain(`client ${clientId}`);
  }, 120_000);

  it('Ctrl-C while waiting ends the login with a message, closes the callback and stores no tokens', async () => {
    const terminal = loginInTerminal();
    const waiting = await terminal.waitFor(/^Waiting for the browser to come back to (\S+) /m);
    terminal.child.stdin.write('\x03');
    expect(await terminal.exited).toBe(130);
    expect(terminal.screen()).toMatch(
      /\nLogin to "secure" cancelled; no new tokens were stored\. Run `efferent mcp login secure` to try again\.\n/,
    );
    expect(terminal.screen()).not.toMatch(/Error|at .*\.ts:\d+/);
    // Nothing listens on the callback any more: a late browser finds no efferent.
    await expect(fetch(`${waiting[1]}?code=late&state=x`)).rejects.toThrow();

    const files = await readdir(storeDir());
    expect(files.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    for (const name of files) {
      const path = join(storeDir(), name);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(await readFile(path, 'utf8'));
      expect(stored.tokens).toBeUndefined();
      expect(stored.codeVerifier).toBeUndefined();
    }
    expect(server.provider.grants).toEqual([]);

    const call = await runEfferent(
      ['call', 'mcp__secure__whoami', '{}', '--allowedTools', 'mcp__secure'],
      project,
      home,
      { EFFERENT_CONFIG_DIR: configDir },
    );
    expect(call.stdout + call.stderr).toContain('run `efferent mcp login secure`');
  }, 120_000);
});
