import { join } from 'node:path';
import { z } from 'zod';
import { buildTool, type ToolUseContext, lazySchema } from '../../core/index.ts';
import { readFileBeneath, writeFileBeneath } from '../../core/session-files.ts';
import { todoWritePrompt } from './todo-write.prompt.ts';

const todoSchema = lazySchema(() =>
  z.strictObject({
    content: z.string().trim().min(1).describe('What to do, in the imperative.'),
    status: z.enum(['pending', 'in_progress', 'completed']),
    activeForm: z
      .string()
      .trim()
      .min(1)
      .describe('The same task in the continuous form, shown while it runs.'),
  }),
);

const inputSchema = lazySchema(() =>
  z.strictObject({
    todos: z.array(todoSchema()).describe('The updated todo list (replaces the previous one).'),
  }),
);

/** One item of the list. */
export type Todo = z.infer<ReturnType<typeof todoSchema>>;

/** What TodoWrite reports. */
export interface TodoWriteOutput {
  oldTodos: Todo[];
  newTodos: Todo[];
}

/** Where an agent's list lives: one file per agent in the session folder, visible to UIs. */
export function todoFilePath(context: ToolUseContext): string {
  return join(context.run.sessionDir, todoFileRelative(context));
}

/** The list's path below the session folder; read and written without following links. */
function todoFileRelative(context: ToolUseContext): string {
  return `todos/${context.agent.agentId.replaceAll('/', '_')}.json`;
}

/** The agent's current list (empty when none was written). */
export async function readTodos(context: ToolUseContext): Promise<Todo[]> {
  try {
    const text = readFileBeneath(context.run.sessionDir, todoFileRelative(context), 1024 * 1024) ?? '[]';
    const parsed = z.array(todoSchema()).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Writes the session's todo list; a list whose items are all completed is cleared. */
export const TodoWriteTool = buildTool({
  name: 'TodoWrite',
  searchHint: 'manage the session task checklist',
  get inputSchema() {
    return inputSchema();
  },
  prompt: todoWritePrompt,
  description: () => 'Update todos',
  shouldDefer: true,
  async validateInput(input) {
    const active = input.todos.filter((todo) => todo.status === 'in_progress').length;
    if (active > 1) {
      return {
        ok: false,
        code: 1,
        message: `${active} items are in_progress; keep exactly one in_progress and set the others to pending or completed.`,
      };
    }
    const seen = new Set<string>();
    for (const todo of input.todos) {
      if (seen.has(todo.content)) {
        return {
          ok: false,
          code: 2,
          message: `The item "${todo.content}" appears twice; merge or reword it.`,
        };
      }
      seen.add(todo.content);
    }
    return { ok: true };
  },
  async call(input, context) {
    const oldTodos = await readTodos(context);
    const allDone = input.todos.length > 0 && input.todos.every((todo) => todo.status === 'completed');
    const stored = allDone ? [] : input.todos;
    // The session folder may be reachable by sandboxed commands: never write through a link there.
    writeFileBeneath(
      context.run.sessionDir,
      todoFileRelative(context),
      `${JSON.stringify(stored, null, 2)}\n`,
    );
    return { data: { oldTodos, newTodos: input.todos } };
  },
  mapResultToBlock: (_output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content:
      'The todo list was updated. Keep using it to track progress, and continue with the current task if there is one.',
  }),
});
