import type { AnyTool, StopReason } from '../core/index.ts';
import { findToolByName } from '../core/tool-lookup.ts';

/** Finds a tool by name, falling back to aliases so old transcripts with renamed tools still resolve. */
export function findTool(tools: readonly AnyTool[], name: string): AnyTool | undefined {
  return findToolByName(tools, name);
}

/** The parsed input when the schema accepts it, otherwise undefined. */
export function parseInput(
  tool: AnyTool,
  input: Record<string, unknown>,
): Record<string, unknown> | undefined {
  try {
    const parsed = tool.inputSchema.safeParse(input);
    return parsed.success ? (parsed.data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a call may run beside others. Fails closed: an unknown tool, input the schema rejects, or a
 * predicate that throws all mean "run alone".
 */
export function isCallConcurrencySafe(tool: AnyTool | undefined, input: Record<string, unknown>): boolean {
  if (!tool) return false;
  const parsed = parseInput(tool, input);
  if (!parsed) return false;
  try {
    return tool.isConcurrencySafe(parsed) === true;
  } catch {
    return false;
  }
}

/** Whether this call's failure should cancel its running siblings (shell commands form chains). */
export function callCancelsSiblings(tool: AnyTool | undefined, input: Record<string, unknown>): boolean {
  if (!tool) return false;
  try {
    return tool.cancelsSiblingsOnError(parseInput(tool, input) ?? input) === true;
  } catch {
    return false;
  }
}

/** What a running call does when the user interrupts; a throwing predicate keeps the safe default. */
export function callInterruptBehavior(tool: AnyTool | undefined): 'cancel' | 'block' {
  if (!tool) return 'cancel';
  try {
    return tool.interruptBehavior() === 'cancel' ? 'cancel' : 'block';
  } catch {
    return 'block';
  }
}

const maxSummaryLength = 40;

/** A short label for a call, such as `Bash(npm test)`, for cancellation messages and progress lines. */
export function describeCall(
  tool: AnyTool | undefined,
  name: string,
  input: Record<string, unknown>,
): string {
  let summary = '';
  try {
    summary = tool ? tool.description(input) : '';
  } catch {
    summary = '';
  }
  if (!summary || summary === name) {
    const first = Object.values(input).find((value) => typeof value === 'string');
    summary = typeof first === 'string' ? first : '';
  }
  summary = summary.replace(/\s+/g, ' ').trim();
  if (summary.length > maxSummaryLength) summary = `${summary.slice(0, maxSummaryLength - 1)}…`;
  return summary ? `${name}(${summary})` : name;
}

/** A phrase for why a stream ended badly, used inside results the model reads. */
export function describeBadEnding(stopReason: StopReason): string {
  switch (stopReason) {
    case 'max_tokens':
      return 'the output token limit was reached';
    case 'refusal':
      return 'the model stopped with a refusal';
    case 'aborted':
      return 'the request was interrupted';
    case 'error':
      return 'the response stream failed';
    case 'end_turn':
    case 'tool_use':
    case 'stop_sequence':
      return 'the response ended';
  }
}
