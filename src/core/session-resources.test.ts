import { describe, expect, it } from 'vitest';
import { createSubagentContext, createToolUseContext } from './context.ts';
import { type SessionResourceKey, SessionResources } from './session-resources.ts';

interface Counter {
  count: number;
  disposed: boolean;
  dispose(): void;
}

const counterKey: SessionResourceKey<Counter> = {
  name: 'counter',
  create: () => ({
    count: 0,
    disposed: false,
    dispose() {
      this.disposed = true;
    },
  }),
};

describe('SessionResources', () => {
  it('creates a resource once and returns the same one after', () => {
    const resources = new SessionResources();
    expect(resources.peek(counterKey)).toBeUndefined();
    resources.get(counterKey).count += 1;
    expect(resources.get(counterKey).count).toBe(1);
  });

  it('disposes every resource and refuses new ones afterwards', async () => {
    const resources = new SessionResources();
    const counter = resources.get(counterKey);
    await resources.dispose();
    expect(counter.disposed).toBe(true);
    expect(() => resources.get(counterKey)).toThrow(/disposed/);
  });

  it('keeps disposing when one resource fails, then reports the failure', async () => {
    const resources = new SessionResources();
    const failing: SessionResourceKey<{ dispose(): Promise<void> }> = {
      name: 'failing',
      create: () => ({ dispose: async () => Promise.reject(new Error('nope')) }),
    };
    const counter = resources.get(counterKey);
    resources.get(failing);
    await expect(resources.dispose()).rejects.toThrow(/failed to dispose/);
    expect(counter.disposed).toBe(true);
  });

  it('is shared by a subagent and separate between sessions', () => {
    const first = createToolUseContext({ cwd: '/tmp' });
    const second = createToolUseContext({ cwd: '/tmp' });
    expect(createSubagentContext(first).run.resources).toBe(first.run.resources);
    expect(first.run.resources).not.toBe(second.run.resources);
  });
});
