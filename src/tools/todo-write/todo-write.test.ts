import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolUseContext, type ToolUseContext } from '../../core/index.ts';
import { readTodos, TodoWriteTool } from './todo-write.ts';

describe('TodoWrite', () => {
  let dir: string;
  let context: ToolUseContext;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efferent-todo-'));
    context = createToolUseContext({ cwd: dir, sessionDir: join(dir, 'session') });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const call = (todos: unknown) =>
    TodoWriteTool.call(
      TodoWriteTool.inputSchema.parse({ todos }),
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      't1',
    );

  it('stores the list on disk and reports the previous one', async () => {
    const first = [{ content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' }];
    expect((await call(first)).data.oldTodos).toEqual([]);
    expect(await readTodos(context)).toEqual(first);
    const second = [
      { content: 'Run tests', status: 'completed', activeForm: 'Running tests' },
      { content: 'Ship', status: 'pending', activeForm: 'Shipping' },
    ];
    expect((await call(second)).data.oldTodos).toEqual(first);
    expect(await readTodos(context)).toEqual(second);
  });

  it('clears the stored list once everything is completed', async () => {
    await call([{ content: 'A', status: 'completed', activeForm: 'Doing A' }]);
    expect(await readTodos(context)).toEqual([]);
  });

  it('keeps each agent its own list', async () => {
    await call([{ content: 'Main', status: 'pending', activeForm: 'Doing main' }]);
    const other: ToolUseContext = { ...context, agent: { ...context.agent, agentId: 'sub-1' } };
    expect(await readTodos(other)).toEqual([]);
  });

  it('rejects two in_progress items and duplicates with advice', async () => {
    const two = await TodoWriteTool.validateInput(
      {
        todos: [
          { content: 'A', status: 'in_progress', activeForm: 'Doing A' },
          { content: 'B', status: 'in_progress', activeForm: 'Doing B' },
        ],
      },
      context,
    );
    expect(two).toMatchObject({ ok: false, message: expect.stringContaining('exactly one in_progress') });
    const duplicate = await TodoWriteTool.validateInput(
      {
        todos: [
          { content: 'A', status: 'pending', activeForm: 'Doing A' },
          { content: 'A', status: 'pending', activeForm: 'Doing A' },
        ],
      },
      context,
    );
    expect(duplicate).toMatchObject({ ok: false });
  });

  it('rejects items without content or activeForm and unknown statuses', () => {
    expect(
      TodoWriteTool.inputSchema.safeParse({ todos: [{ content: ' ', status: 'pending', activeForm: 'x' }] })
        .success,
    ).toBe(false);
    expect(
      TodoWriteTool.inputSchema.safeParse({ todos: [{ content: 'a', status: 'done', activeForm: 'x' }] })
        .success,
    ).toBe(false);
    expect(
      TodoWriteTool.inputSchema.safeParse({ todos: [{ content: 'a', status: 'pending' }] }).success,
    ).toBe(false);
  });
});
