import { z } from 'zod';
import { buildTool, type Tool, lazySchema } from '../../core/index.ts';
import {
  type BackgroundTaskStatus,
  sessionTaskManager,
  unknownTaskMessage,
} from '../shared/process/background-tasks.ts';
import { taskStopPrompt, taskStopToolName } from './task-stop.prompt.ts';

/** TaskStop's input: `task_id`, or the deprecated `shell_id`. */
export const taskStopInputSchema = lazySchema(() =>
  z.strictObject({
    task_id: z.string().min(1).optional().describe('The id of the background task to stop'),
    shell_id: z.string().min(1).optional().describe('Deprecated: use task_id'),
  }),
);

/** Parsed TaskStop input. */
export type TaskStopInput = z.infer<ReturnType<typeof taskStopInputSchema>>;

/** What TaskStop returns. */
export interface TaskStopResult {
  taskId: string;
  command: string;
  /** The status before the call: stopping a finished task changes nothing. */
  previousStatus: BackgroundTaskStatus;
  status: BackgroundTaskStatus;
}

function targetId(input: TaskStopInput): string {
  return input.task_id ?? input.shell_id ?? '';
}

/** The TaskStop tool. */
export const TaskStopTool: Tool<TaskStopInput, TaskStopResult> = buildTool<TaskStopInput, TaskStopResult>({
  name: taskStopToolName,
  aliases: ['KillShell'],
  searchHint: 'stop a running background task',
  get inputSchema() {
    return taskStopInputSchema();
  },
  prompt: taskStopPrompt,
  description: (input) => `Stop task ${input.task_id ?? input.shell_id ?? ''}`.trim(),
  isConcurrencySafe: () => true,
  shouldDefer: true,
  async validateInput(input, context) {
    const id = targetId(input);
    if (id === '')
      return { ok: false, code: 'missing_task_id', message: 'Give task_id: the id of the task to stop.' };
    const message = unknownTaskMessage(context, id);
    return message === undefined ? { ok: true } : { ok: false, code: 'task_not_found', message };
  },
  async call(input, context) {
    const tasks = sessionTaskManager(context);
    const id = targetId(input);
    const before = tasks.get(id);
    const after = await tasks.stop(id);
    return {
      data: {
        taskId: id,
        command: after.command,
        previousStatus: before?.status ?? after.status,
        status: after.status,
      },
    };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content:
      output.previousStatus === 'running'
        ? `Stopped task ${output.taskId} (${output.command}).`
        : `Task ${output.taskId} (${output.command}) had already ended (${output.previousStatus}); nothing to stop.`,
  }),
});
