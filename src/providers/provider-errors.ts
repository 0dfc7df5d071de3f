import type { StreamEvent } from '../core/index.ts';
import { errorMessage } from '../core/index.ts';

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
