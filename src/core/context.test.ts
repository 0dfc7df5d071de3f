import { describe, expect, it } from 'vitest';
import { createSubagentContext, createToolUseContext, subagentFieldPolicy } from './context.ts';

describe('createSubagentContext', () => {
  const parent = () => {
    const context = createToolUseContext({
      cwd: '/work/a',
      model: 'parent-model',
      additionalDirectories: ['/extra'],
      ui: { notify: () => {} },
    });
    context.run.readFileState.set('/work/a/x.ts', { content: 'x', timestamp: 1 });
    context.run.messages.push({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    context.run.denialTracking.consecutive = 2;
    context.run.denialTracking.total = 7;
    return context;
  };

  it('has a policy for every field of the context', () => {
    const context = parent();
    const fields = [
      ...Object.keys(context.options).map((key) => `options.${key}`),
      ...Object.keys(context.run).map((key) => `run.${key}`),
      'agent.agentId',
      'agent.agentType',
      'agent.parentSystemPrompt',
      'agent.depth',
      'agent.isAsync',
      'ui',
    ];
    for (const field of fields) expect(subagentFieldPolicy).toHaveProperty([field]);
  });

  it('copies the read-file state: the child starts with it, changes stay apart', () => {
    const context = parent();
    const child = createSubagentContext(context);
    expect(child.run.readFileState.get('/work/a/x.ts')?.content).toBe('x');
    child.run.readFileState.set('/work/a/y.ts', { content: 'y', timestamp: 2 });
    expect(context.run.readFileState.has('/work/a/y.ts')).toBe(false);
  });

  it('gives fresh messages and fresh denial tracking', () => {
    const context = parent();
    const child = createSubagentContext(context);
    expect(child.run.messages).toEqual([]);
    expect(child.run.denialTracking).toEqual({ consecutive: 0, total: 0 });
    child.run.denialTracking.total = 1;
    expect(context.run.denialTracking.total).toBe(7);
  });

  it('links abort: the parent aborting aborts the child, not the other way round', () => {
    const context = parent();
    const child = createSubagentContext(context);
    child.run.abortController.abort();
    expect(context.run.abortController.signal.aborted).toBe(false);
    const second = createSubagentContext(context);
    context.run.abortController.abort('stop');
    expect(second.run.abortController.signal.aborted).toBe(true);
    expect(second.run.abortController.signal.reason).toBe('stop');
  });

  it('starts aborted when the parent already is', () => {
    const context = parent();
    context.run.abortController.abort();
    expect(createSubagentContext(context).run.abortController.signal.aborted).toBe(true);
  });

  it('shares session identity and copies cwd and directories', () => {
    const context = parent();
    const child = createSubagentContext(context);
    expect(child.run.sessionId).toBe(context.run.sessionId);
    expect(child.run.cwd).toBe('/work/a');
    expect(child.run.additionalDirectories).toEqual(['/extra']);
    expect(child.run.additionalDirectories).not.toBe(context.run.additionalDirectories);
  });

  it('takes overrides and records the agent', () => {
    const context = parent();
    const child = createSubagentContext(context, {
      agentType: 'Explore',
      model: 'small',
      permissionMode: 'plan',
      parentSystemPrompt: 'frozen',
    });
    expect(child.options.model).toBe('small');
    expect(child.run.permissionMode).toBe('plan');
    expect(child.agent).toMatchObject({
      agentType: 'Explore',
      depth: 1,
      isAsync: false,
      parentSystemPrompt: 'frozen',
    });
    expect(child.options.tools).toBe(context.options.tools);
  });

  it('shares the UI with a foreground child and drops it for a background one', () => {
    const context = parent();
    expect(createSubagentContext(context).ui).toBe(context.ui);
    expect(createSubagentContext(context, { isAsync: true }).ui).toBeUndefined();
  });
});
