import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from './build-tool.ts';
import { createToolUseContext } from './context.ts';
import { prepareCall, preparedCallOf } from './prepared-call.ts';

const context = createToolUseContext({ cwd: '/srv/proj' });

describe('prepareCall', () => {
  it('asks a tool without prepare() each question once, and fails closed when a predicate throws', () => {
    const asked: string[] = [];
    const tool = buildTool({
      name: 'Probe',
      inputSchema: z.object({ path: z.string() }),
      prompt: 'probe',
      call: async () => ({ data: 'ran' }),
      isReadOnly: (input) => {
        asked.push(`readOnly ${input.path}`);
        return true;
      },
      isConcurrencySafe: () => {
        throw new Error('broken predicate');
      },
      permissionTarget: (input) => {
        asked.push(`target ${input.path}`);
        return { kind: 'path', path: input.path, access: 'read' };
      },
    });
    const prepared = prepareCall(tool, { path: 'a' }, context);
    expect([prepared.isReadOnly(), prepared.isReadOnly()]).toEqual([true, true]);
    expect(prepared.isConcurrencySafe()).toBe(false);
    expect(prepared.permissionTarget(context)).toEqual({ kind: 'path', path: 'a', access: 'read' });
    prepared.permissionTarget(context);
    expect(asked).toEqual(['readOnly a', 'target a']);
  });

  it('gives the prepared answers through its view only for its own observable input', async () => {
    const tool = buildTool({
      name: 'Cmd',
      inputSchema: z.object({ command: z.string() }),
      prompt: 'cmd',
      call: async (input) => ({ data: `tool ran ${input.command}` }),
      isReadOnly: () => false,
      prepare: (input) => ({
        isReadOnly: () => true,
        permissionTarget: () => ({ kind: 'command', command: `prepared ${input.command}`, shell: 'bash' }),
        checkPermissions: async () => ({ behavior: 'deny', message: 'prepared objection' }),
        call: async () => ({ data: `invocation ran ${input.command}` }),
      }),
    });
    const input = { command: 'ls' };
    const observable = { command: 'ls' };
    const prepared = prepareCall(tool, input, context).withObservableInput(observable);
    const view = prepared.view;
    expect(preparedCallOf(view)).toBe(prepared);
    expect(preparedCallOf(tool)).toBeUndefined();
    expect(view.isReadOnly(observable)).toBe(true);
    expect(view.permissionTarget(observable, context)).toMatchObject({ command: 'prepared ls' });
    expect(await view.checkPermissions(observable, context)).toMatchObject({ behavior: 'deny' });
    // Another input (a hook's rewrite) is the tool's to answer, never the preparation's.
    const other = { command: 'rm -rf x' };
    expect(view.isReadOnly(other)).toBe(false);
    expect(view.permissionTarget(other, context)).toEqual({ kind: 'none' });
    expect(await view.checkPermissions(other, context)).toEqual({ behavior: 'passthrough' });
    const result = await prepared.call(
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      't1',
    );
    expect(result.data).toBe('invocation ran ls');
  });
});
