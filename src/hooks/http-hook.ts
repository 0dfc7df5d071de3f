import type { HookResult } from './hook-output.ts';
import { parseHookJson } from './hook-output.ts';

/** An `http` handler as written in a settings file. */
export interface HttpHookHandler {
  type: 'http';
  url: string;
  /** Header values; `$VAR` and `${VAR}` are filled only for variables listed in `allowedEnvVars`. */
  headers?: Record<string, string>;
  allowedEnvVars?: readonly string[];
  /** Seconds. */
  timeout?: number;
}

/** Fills `$VAR` / `${VAR}` in a header value; variables not allowed (or unset) become empty, as in Claude Code. */
export function expandHeader(
  value: string,
  allowed: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, braced, bare) => {
    const name = (braced ?? bare) as string;
    return allowed.includes(name) ? (env[name] ?? '') : '';
  });
}

/** Whether `url` matches one pattern of the allowlist (`*` matches any run of characters). */
export function httpHookUrlAllowed(url: string, allowlist: readonly string[] | undefined): boolean {
  if (allowlist === undefined) return true;
  return allowlist.some((pattern) => {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`).test(url);
  });
}

/**
 * POSTs the hook input as JSON. A 2xx with an empty body is success without output; a 2xx with a
 * JSON object follows the same output contract as a command hook's stdout; any other body, a non-2xx
 * status or a failed connection is a non-blocking error. Never rejects; `timedOut` is reported.
 */
export async function runHttpHook(
  handler: HttpHookHandler,
  hook: string,
  options: {
    body: string;
    env: Readonly<Record<string, string | undefined>>;
    timeoutMs: number;
    signal: AbortSignal;
  },
): Promise<HookResult | 'timeout'> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(handler.headers ?? {}))
    headers[name] = expandHeader(value, handler.allowedEnvVars ?? [], options.env);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(handler.url, {
      method: 'POST',
      headers,
      body: options.body,
      signal: AbortSignal.any([options.signal, timeout]),
      redirect: 'error',
    });
    const text = (await response.text()).trim();
    if (!response.ok) return { hook, error: `Hook ${hook} answered HTTP ${response.status}.` };
    if (text === '') return { hook };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { hook, error: `Hook ${hook} answered with a body that is not JSON.` };
    }
    const parsed = parseHookJson(json);
    return parsed.ok ? { hook, output: parsed.output } : { hook, error: parsed.message };
  } catch (error) {
    if (timeout.aborted) return 'timeout';
    if (options.signal.aborted) return { hook, error: `Hook ${hook} was cancelled.` };
    return { hook, error: `Hook ${hook} could not be reached: ${(error as Error).message}` };
  }
}
