import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { buildTool, lazySchema } from '../../core/index.ts';
import { sleepPrompt } from './sleep.prompt.ts';

/** The longest single wait. */
export const maxSleepMs = 600_000;

const inputSchema = lazySchema(() =>
  z.strictObject({
    duration_ms: z.number().int().min(1).max(maxSleepMs).describe('How long to wait, in milliseconds.'),
    reason: z.string().optional().describe('What you are waiting for.'),
  }),
);

/** What Sleep reports. */
export interface SleepOutput {
  requestedMs: number;
  sleptMs: number;
  interrupted: boolean;
}

/** Waits, abortably. */
export const SleepTool = buildTool({
  name: 'Sleep',
  searchHint: 'wait pause delay before checking again',
  get inputSchema() {
    return inputSchema();
  },
  prompt: sleepPrompt,
  description: (input) => `Sleep ${input.duration_ms ?? '?'} ms`,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async call(input, context): Promise<{ data: SleepOutput }> {
    const started = context.run.now();
    const signal = context.run.abortController.signal;
    let interrupted = false;
    try {
      await delay(input.duration_ms, undefined, { signal });
    } catch (error) {
      if (!signal.aborted) throw error;
      interrupted = true;
    }
    return { data: { requestedMs: input.duration_ms, sleptMs: context.run.now() - started, interrupted } };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: output.interrupted
      ? `Sleep interrupted after ${output.sleptMs} ms of ${output.requestedMs} ms.`
      : `Slept ${output.requestedMs} ms.`,
  }),
});
