import type { StopReason, ToolResultBlock } from '../core/index.ts';
import { describeBadEnding } from './call-safety.ts';

/** An error result the executor writes itself for a call it did not (fully) run. */
export function syntheticErrorResult(toolUseId: string, text: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content: text, isError: true };
}

/** For a tool name the pool does not know. */
export function unknownToolText(name: string, available: readonly string[]): string {
  const listed = available.slice(0, 40).join(', ');
  return `No such tool available: ${name}. Use one of the available tools${listed ? `: ${listed}` : ''}.`;
}

/** For a sibling cancelled because a chained call failed (the wording Claude Code uses). */
export function siblingCancelledText(erroredCall: string): string {
  return `Cancelled: parallel tool call ${erroredCall} errored`;
}

/** For a call the user's interrupt stopped, before or while it ran. */
export function interruptedText(name: string, wasRunning: boolean): string {
  return wasRunning
    ? `Interrupted by the user: ${name} was cancelled while running. Wait for the user's next instruction.`
    : `Interrupted by the user: ${name} was not run. Wait for the user's next instruction.`;
}

/** For a call whose input never fully arrived. */
export function notReceivedText(stopReason: StopReason): string {
  return `This call was not run: ${describeBadEnding(stopReason)} before its input was complete. Send the call again (with a shorter input if the response was cut off).`;
}

/** For a complete call that would change state, in a response that ended badly. */
export function mutatingCallSkippedText(stopReason: StopReason): string {
  return `This call was not run: ${describeBadEnding(stopReason)} and the call would change state, so it was not started from an incomplete response. Send it again if it is still needed.`;
}

/** For a call whose streamed input was not valid JSON. */
export function invalidInputJsonText(detail: string): string {
  return `This call was not run: its input was not valid JSON (${detail}). Send the call again with a complete JSON object.`;
}
