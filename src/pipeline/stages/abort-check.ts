import { EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import type { CallFailure } from '../types.ts';

/** What the model reads when the user interrupted before or during a call. */
export const interruptedMessage =
  'The user interrupted this tool call, so it was not completed. Stop and wait for the user to say how to proceed.';

/** A failure for an interrupted call. */
export function abortedFailure(): CallFailure {
  return {
    message: interruptedMessage,
    outcome: 'aborted',
    error: new EfferentError(ErrorCodes.aborted, 'aborted by the user'),
  };
}

/** Step 2: a call queued before an interrupt reached it must not start. */
export function checkAbort(context: ToolUseContext): CallFailure | undefined {
  return context.run.abortController.signal.aborted ? abortedFailure() : undefined;
}
