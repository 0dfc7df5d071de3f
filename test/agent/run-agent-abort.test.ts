import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  createToolUseContext,
  emptyUsage,
  type ModelProvider,
  type StreamEvent,
} from '../../src/core/index.ts';
import { type AgentDone, runAgent } from '../../src/agent/index.ts';
import { createToolNameResolver, createToolRunner } from '../../src/pipeline/index.ts';

/** Records how a call ended, so the test can see it was aborted rather than left running. */
const endings: string[] = [];
const slow = buildTool({
  name: 'Slow',
  inputSchema: z.object({ ms: z.number() }),
  prompt: 'Waits.',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: () => 'cancel',
  async call(input, context) {
    const signal = context.run.abortController.signal;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, input.ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        endings.push('aborted');
        reject(new Error('aborted'));
      });
    });
    endings.push('finished');
    return { data: 'done' };
  },
});
const tools = [slow];
const runTool = createToolRunner({ tools, resolvePermission: createToolNameResolver({ allow: ['Slow'] }) });

/** One turn that asks for a long call, then keeps the request open until its signal aborts. */
function hangingProvider(seen: { signal?: AbortSignal; closed: boolean }): ModelProvider {
  return {
    name: 'hanging',
    model: 'test-model',
    async *stream(request): AsyncGenerator<StreamEvent> {
      seen.signal = request.signal;
      try {
        yield { type: 'message_start' };
        yield { type: 'tool_use_start', id: 'toolu_1', name: 'Slow' };
        yield { type: 'tool_use_end', id: 'toolu_1', name: 'Slow', input: { ms: 5000 } };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5000);
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        yield { type: 'message_end', stopReason: 'tool_use', usage: emptyUsage() };
      } finally {
        seen.closed = true;
      }
    },
  };
}

describe('runAgent aborts', () => {
  it('the model request and the running tools when the consumer stops reading, and stops listening to the caller signal', async () => {
    endings.length = 0;
    const seen: { signal?: AbortSignal; closed: boolean } = { closed: false };
    const caller = new AbortController();
    const started = performance.now();
    for await (const event of runAgent({
      provider: hangingProvider(seen),
      tools,
      runTool,
      context: createToolUseContext({ cwd: process.cwd(), tools }),
      systemPrompt: 'test',
      prompt: 'go',
      signal: caller.signal,
    })) {
      if (event.type === 'tool_started') break;
    }
    expect(endings).toEqual(['aborted']);
    expect(seen.signal?.aborted).toBe(true);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    // The provider's stream sees the abort and is closed soon after, not after its 5 s wait.
    for (let waited = 0; !seen.closed && waited < 1000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.closed).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("stops when the context's abort controller aborts, as a subagent does when its parent call is cancelled", async () => {
    endings.length = 0;
    const seen: { signal?: AbortSignal; closed: boolean } = { closed: false };
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    const events: string[] = [];
    let done: AgentDone | undefined;
    for await (const event of runAgent({
      provider: hangingProvider(seen),
      tools,
      runTool,
      context,
      systemPrompt: 'test',
      prompt: 'go',
    })) {
      events.push(event.type);
      if (event.type === 'tool_started') setTimeout(() => context.run.abortController.abort(), 10);
      if (event.type === 'done') done = event;
    }
    expect(done?.reason).toBe('aborted');
    expect(endings).toEqual(['aborted']);
    expect(seen.signal?.aborted).toBe(true);
    expect(done?.context.run.abortController).toBe(context.run.abortController);
    expect(getEventListeners(context.run.abortController.signal, 'abort')).toHaveLength(0);
  });

  it('removes its listeners from a signal that never aborts once the run is done', async () => {
    const caller = new AbortController();
    const context = createToolUseContext({ cwd: process.cwd(), tools });
    const provider: ModelProvider = {
      name: 'one-turn',
      model: 'test-model',
      async *stream(): AsyncGenerator<StreamEvent> {
        yield { type: 'text_delta', text: 'hello' };
        yield { type: 'message_end', stopReason: 'end_turn', usage: emptyUsage() };
      },
    };
    const options = {
      provider,
      tools,
      runTool,
      context,
      systemPrompt: 'test',
      prompt: 'hi',
      signal: caller.signal,
    };
    for await (const event of runAgent(options))
      if (event.type === 'done') expect(event.reason).toBe('end_turn');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(context.run.abortController.signal, 'abort')).toHaveLength(0);
  });
});
