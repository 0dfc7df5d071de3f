import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** What efferent keeps for one OAuth-protected server (mode 0600, written atomically). */
interface StoredAuth {
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
  discovery?: OAuthDiscoveryState;
}

/** Raised when a server needs a user to authorize efferent and nobody can (headless). */
export class McpAuthorizationRequiredError extends Error {
  readonly serverName: string;
  constructor(serverName: string) {
    super(`server ${serverName} needs authorization: run \`efferent mcp login ${serverName}\``);
    this.name = 'McpAuthorizationRequiredError';
    this.serverName = serverName;
  }
}

/** The file that holds one server's client registration and tokens, keyed by name and URL. */
export function oauthStorePath(storeDir: string, serverName: string, serverUrl: string): string {
  const digest = createHash('sha256').update(serverUrl).digest('hex').slice(0, 12);
  return join(storeDir, `${serverName.replace(/[^A-Za-z0-9_.-]/g, '_')}-${digest}.json`);
}

async function writePrivateAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.chmod(0o600);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  } finally {
    await handle.close().catch(() => {});
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/** Options for {@link FileOAuthProvider}. */
export interface FileOAuthProviderOptions {
  serverName: string;
  serverUrl: string;
  /** Folder for the credential files (`<config dir>/mcp-auth`); created with mode 0700. */
  storeDir: string;
  /** The loopback redirect of an interactive login; without it the provider cannot start one. */
  redirectUrl?: string;
  /** Shown the authorization URL when a login starts. */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
}

/**
 * The SDK's `OAuthClientProvider` over a private file: dynamic client registration, PKCE verifier,
 * tokens and discovery state survive between runs. Without a redirect URL (headless) it refreshes
 * tokens but never starts an authorization: that throws {@link McpAuthorizationRequiredError}.
 */
export class FileOAuthProvider implements OAuthClientProvider {
  readonly path: string;
  readonly #options: FileOAuthProviderOptions;
  #stored: StoredAuth | undefined;
  #state: string | undefined;

  constructor(options: FileOAuthProviderOptions) {
    this.#options = options;
    this.path = oauthStorePath(options.storeDir, options.serverName, options.serverUrl);
  }

  /**
   * The loopback redirect of an interactive login. Headless, the registered one (or a placeholder):
   * the SDK treats a provider without a redirect URL as a client-credentials client and would
   * request tokens instead of refreshing them; {@link redirectToAuthorization} still refuses.
   */
  get redirectUrl(): string {
    if (this.#options.redirectUrl) return this.#options.redirectUrl;
    const client = this.#stored?.client as { redirect_uris?: string[] } | undefined;
    return client?.redirect_uris?.[0] ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'efferent',
      redirect_uris: this.#options.redirectUrl ? [this.#options.redirectUrl] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** The `state` sent with the authorization request, checked when the browser comes back. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  state(): string {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }

  async #load(): Promise<StoredAuth> {
    if (this.#stored) return this.#stored;
    try {
      const parsed = JSON.parse(await readFile(this.path, 'utf8')) as StoredAuth;
      this.#stored =
        parsed.serverUrl === this.#options.serverUrl ? parsed : { serverUrl: this.#options.serverUrl };
    } catch {
      this.#stored = { serverUrl: this.#options.serverUrl };
    }
    return this.#stored;
  }

  async #save(change: { [K in keyof StoredAuth]?: StoredAuth[K] | undefined }): Promise<void> {
    const next: Record<string, unknown> = { ...(await this.#load()), ...change };
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete next[key];
    this.#stored = next as unknown as StoredAuth;
    await mkdir(this.#options.storeDir, { recursive: true, mode: 0o700 });
    await writePrivateAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { client, tokens } = await this.#load();
    if (!this.#options.redirectUrl) {
      // Headless: registering a client nobody can authorize would only leave a stray registration.
      if (!client && !tokens) throw new McpAuthorizationRequiredError(this.#options.serverName);
      return client;
    }
    // A registration for another redirect URI would make the server refuse the login: register again.
    const registered = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (client && registered && !registered.includes(this.#options.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.#save({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.#load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#save({ tokens });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.#options.redirectUrl) throw new McpAuthorizationRequiredError(this.#options.serverName);
    await this.#options.onAuthorizationUrl?.(authorizationUrl);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.#save({ codeVerifier });
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.#load()).codeVerifier;
    if (!verifier) throw new Error(`no login is under way for MCP server "${this.#options.serverName}"`);
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.#save({ discovery });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all')
      await this.#save({
        client: undefined,
        tokens: undefined,
        codeVerifier: undefined,
        discovery: undefined,
      });
    else if (scope === 'client') await this.#save({ client: undefined });
    else if (scope === 'tokens') await this.#save({ tokens: undefined });
    else if (scope === 'verifier') await this.#save({ codeVerifier: undefined });
    else await this.#save({ discovery: undefined });
  }

  /** The redirect URI the stored registration uses, so a new login can reuse its port. */
  async registeredRedirectUrl(): Promise<string | undefined> {
    const client = (await this.#load()).client as { redirect_uris?: string[] } | undefined;
    return client?.redirect_uris?.[0];
  }
}

/** Where an interactive login stands, for the terminal. */
export type McpLoginProgress =
  /** The authorization URL is out; efferent waits for the browser on this loopback callback. */
  | { stage: 'waiting'; callbackUrl: string; timeoutMs: number }
  /** The browser came back with a code; efferent exchanges it for tokens. */
  | { stage: 'exchanging' }
  /** A stored refresh token still worked: no browser was needed. */
  | { stage: 'refreshed' };

/** Raised when the caller's signal ends a login (Ctrl-C); nothing half-done is kept. */
export class McpLoginCancelledError extends Error {
  constructor() {
    super('the login was cancelled');
    this.name = 'McpLoginCancelledError';
  }
}

/** Options for {@link loginToMcpServer}. */
export interface McpLoginOptions {
  serverName: string;
  serverUrl: string;
  storeDir: string;
  /** Told the URL to open (printed by the CLI). */
  onAuthorizationUrl: (url: URL) => void;
  /** Told how the login goes: waiting for the browser, exchanging the code, or refreshed. */
  onProgress?: (progress: McpLoginProgress) => void;
  /** Also open the URL with the desktop's opener (`xdg-open`, `open`). */
  openBrowser?: boolean;
  /** How long to wait for the browser to come back; default 5 minutes. */
  timeoutMs?: number;
  /** Ends the wait (Ctrl-C): the login rejects with {@link McpLoginCancelledError}. */
  signal?: AbortSignal;
  /** The SDK's fetch for discovery, registration and token requests (tests). */
  fetchFn?: typeof fetch;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function openInBrowser(url: URL): void {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  const child = spawn(opener, [url.href], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

const callbackPage = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>efferent</title><p>${text}</p>`;

/** What the loopback callback received: a code, or why there is none. */
type CallbackOutcome = { code: string } | { error: Error };

/**
 * Answers the browser's redirect to `/callback` on the login's loopback server, checking `state`.
 * Resolves with the first callback's outcome; other paths get 404.
 */
function awaitCallback(
  server: Server,
  port: number,
  expectedState: () => string | undefined,
): Promise<CallbackOutcome> {
  return new Promise((resolve) => {
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
      if (url.pathname !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      const error = url.searchParams.get('error');
      const value = url.searchParams.get('code');
      const stateOk = url.searchParams.get('state') === expectedState();
      const ok = !error && value && stateOk;
      response.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        callbackPage(
          ok
            ? 'efferent is authorized. You can close this window.'
            : 'efferent was not authorized. You can close this window.',
        ),
      );
      if (ok) return resolve({ code: value });
      const description = url.searchParams.get('error_description');
      resolve({
        error: new Error(
          error
            ? `the server refused the authorization (${error}${description ? `: ${description}` : ''})`
            : 'the authorization response had no code or a wrong state; run the login again',
        ),
      });
    });
  });
}

/** Rejects when the signal aborts or the time runs out; `stop` clears both. */
function waitLimit(
  timeoutMs: number,
  signal: AbortSignal | undefined,
): { ended: Promise<never>; stop: () => void } {
  let stop = () => {};
  const ended = new Promise<never>((_resolve, reject) => {
    const onAbort = () => reject(new McpLoginCancelledError());
    const timer = setTimeout(
      () =>
        reject(
          new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)} s; run the login again`),
        ),
      timeoutMs,
    );
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
  });
  ended.catch(() => {});
  return { ended, stop };
}

/**
 * Authorizes efferent with an OAuth-protected MCP server: discovery, dynamic client registration
 * and PKCE through the SDK's `auth()`, the authorization code received on a loopback redirect
 * (127.0.0.1, the port of the stored registration when free, else a random one). Resolves once
 * tokens are stored; refreshes instead when a refresh token still works. A cancelled or failed wait
 * drops the PKCE verifier it stored and leaves any earlier tokens as they were; every write is
 * atomic, so no token file is ever half written.
 */
export async function loginToMcpServer(options: McpLoginOptions): Promise<void> {
  const server = createServer();
  const probe = new FileOAuthProvider(options);
  const previous = await probe.registeredRedirectUrl();
  const previousPort = previous?.startsWith('http://127.0.0.1:') ? Number(new URL(previous).port) : 0;
  const port = await listen(server, previousPort).catch(() => listen(server, 0));
  const callbackUrl = `http://127.0.0.1:${port}/callback`;
  const provider = new FileOAuthProvider({
    ...options,
    redirectUrl: callbackUrl,
    onAuthorizationUrl: (url) => {
      options.onAuthorizationUrl(url);
      if (options.openBrowser) openInBrowser(url);
    },
  });
  const authOptions = {
    serverUrl: options.serverUrl,
    ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}),
  };
  const timeoutMs = options.timeoutMs ?? 300_000;
  const limit = waitLimit(timeoutMs, options.signal);
  const callback = awaitCallback(server, port, () => provider.expectedState);
  let waiting = false;
  try {
    const first = await Promise.race([auth(provider, authOptions), limit.ended]);
    if (first === 'AUTHORIZED') {
      options.onProgress?.({ stage: 'refreshed' });
      return;
    }
    waiting = true;
    options.onProgress?.({ stage: 'waiting', callbackUrl, timeoutMs });
    const outcome = await Promise.race([callback, limit.ended]);
    if ('error' in outcome) throw outcome.error;
    waiting = false;
    limit.stop();
    options.onProgress?.({ stage: 'exchanging' });
    const result = await auth(provider, { ...authOptions, authorizationCode: outcome.code });
    if (result !== 'AUTHORIZED') throw new Error('the server did not issue tokens; run the login again');
  } catch (error) {
    // The verifier belongs to an authorization that will never complete.
    if (waiting) await provider.invalidateCredentials('verifier').catch(() => {});
    throw error;
  } finally {
    limit.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
