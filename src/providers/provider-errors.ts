import type { StreamEvent, TokenUsage } from '../core/index.ts';
import { EfferentError, ErrorCodes, errorMessage } from '../core/index.ts';

/**
 * The provider SDKs are optional peer dependencies: a missing one fails the first request with the
 * command that installs it.
 */
export function missingSdk(name: string): (error: unknown) => never {
  return (error) => {
    throw new EfferentError(
      ErrorCodes.providerConfig,
      `This provider needs the optional package ${name}, which could not be loaded (${errorMessage(error).split('\n')[0]}). Install it next to efferent: npm install ${name}.`,
    );
  };
}

/** Status codes worth retrying: timeouts, conflicts, rate limits, overload (529) and server errors. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

interface ErrorShape {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  cause?: unknown;
  code?: unknown;
  name?: unknown;
}

/** The `type` of an API error body (`overloaded_error`, `rate_limit_error`, …), however the SDK nests it. */
function apiErrorType(error: ErrorShape): string | undefined {
  const body = error.error as { type?: unknown; error?: { type?: unknown } } | undefined;
  const type = body?.error?.type ?? body?.type;
  return typeof type === 'string' ? type : undefined;
}

const droppedConnection =
  /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|socket hang up|other side closed|terminated|premature close|Connection error|network/i;

/** True when the failure is a connection that could not be made or was dropped (the SDKs' connection errors included). */
function isConnectionFailure(error: ErrorShape): boolean {
  const name = typeof error.name === 'string' ? error.name : '';
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true;
  const cause = error.cause as ErrorShape | undefined;
  const code =
    typeof error.code === 'string' ? error.code : typeof cause?.code === 'string' ? cause.code : '';
  if (/^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) return true;
  return (
    droppedConnection.test(errorMessage(error)) ||
    (cause !== undefined && droppedConnection.test(errorMessage(cause)))
  );
}

/** A header of an SDK error, whichever way the SDK stores them. */
function header(error: ErrorShape, name: string): string | undefined {
  const headers = error.headers as
    | { get?: (key: string) => string | null }
    | Record<string, string>
    | undefined;
  if (!headers) return undefined;
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const value = (headers as Record<string, string>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** How long the server asked to wait (`retry-after-ms`, or `retry-after` in seconds or as a date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const shape = error as ErrorShape;
  const ms = Number(header(shape, 'retry-after-ms'));
  if (header(shape, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = header(shape, 'retry-after');
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Turns an SDK failure into a stream `error` event with one readable line: whether it is worth
 * retrying (overload, rate limits, server errors, dropped connections), how long the server asked to
 * wait, and the usage the turn had consumed.
 */
export function providerErrorEvent(provider: string, error: unknown, usage?: TokenUsage): StreamEvent {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  const type = apiErrorType(shape);
  const overloaded = type === 'overloaded_error' || /overloaded/i.test(errorMessage(error));
  const event: StreamEvent = { type: 'error', message: `${provider}: ${errorMessage(error).split('\n')[0]}` };
  if (status !== undefined) event.status = status;
  const retryable =
    isRetryableStatus(status) ||
    overloaded ||
    type === 'rate_limit_error' ||
    type === 'api_error' ||
    (status === undefined && isConnectionFailure(shape));
  if (status !== undefined || retryable) event.retryable = retryable;
  const wait = retryAfterMs(error);
  if (wait !== undefined) event.retryAfterMs = wait;
  if (
    usage &&
    (usage.inputTokens || usage.outputTokens || usage.cacheReadInputTokens || usage.cacheCreationInputTokens)
  ) {
    event.usage = { ...usage };
  }
  return event;
}
