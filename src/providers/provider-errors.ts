import type { StreamEvent } from '../core/index.ts';
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

/** Status codes worth retrying: rate limits, overload, and server errors. */
function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

/** Turns an SDK failure into a stream `error` event with one readable line. */
export function providerErrorEvent(provider: string, error: unknown): StreamEvent {
  const status = (error as { status?: unknown } | undefined)?.status;
  const event: StreamEvent = { type: 'error', message: `${provider}: ${errorMessage(error).split('\n')[0]}` };
  if (typeof status === 'number') {
    event.status = status;
    event.retryable = isRetryableStatus(status);
  }
  return event;
}
