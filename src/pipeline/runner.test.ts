import { afterEach, describe, expect, it } from 'vitest';
import { createToolRunner } from './runner.ts';
import {
  collect,
  contextIn,
  echoTool,
  onlyResult,
  resultText,
  tempDir,
  toolUse,
} from './test-support/fixtures.ts';
import { createToolNameResolver } from './tool-name-resolver.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function dir(): string {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  return temp.path;
}

describe('createToolRunner basics', () => {
  it('runs an allowed call: progress first, then exactly one result', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const run = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: createToolNameResolver({ allow: ['Echo'] }),
    });
    const events = await collect(run, toolUse('Echo', { text: 'hi', times: 2 }), contextIn(dir()));
    expect(events[0]).toEqual({ type: 'progress', toolUseId: 'toolu_1', data: { step: 'echoing' } });
    const result = onlyResult(events);
    expect(result.result).toEqual({ type: 'tool_result', toolUseId: 'toolu_1', content: 'hihi' });
    expect(result.errorClass).toBeUndefined();
    expect(calls).toEqual([{ text: 'hi', times: 2 }]);
  });

  it('resolves an alias and reports unknown tools with close names', async () => {
    const run = createToolRunner({
      tools: [echoTool()],
      resolvePermission: createToolNameResolver({ allow: ['Echo'] }),
    });
    const context = contextIn(dir());
    expect(resultText(onlyResult(await collect(run, toolUse('Say', { text: 'x' }), context)))).toBe('x');
    const unknown = onlyResult(await collect(run, toolUse('Ecko', { text: 'x' }), context));
    expect(unknown.result.isError).toBe(true);
    expect(resultText(unknown)).toBe('No such tool available: Ecko. Did you mean: Echo?');
    expect(unknown.errorClass).toBe('efferent:tool_not_found');
  });
});
