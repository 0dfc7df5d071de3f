import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type Tool, lazySchema } from '../../core/index.ts';
import {
  type BackgroundTaskStatus,
  sessionTaskManager,
  unknownTaskMessage,
} from '../shared/process/background-tasks.ts';
import {
  taskOutputDefaultTimeoutMs,
  taskOutputMaxTimeoutMs,
  taskOutputPrompt,
  taskOutputToolName,
} from './task-output.prompt.ts';

/** TaskOutput's input. */
export const taskOutputInputSchema = lazySchema(() =>
  z.strictObject({
    task_id: z.string().min(1).describe('The id of the background task'),
    block: z.boolean().default(true).describe('Wait for the task to finish (default true)'),
    timeout: z
      .number()
      .min(0)
      .max(taskOutputMaxTimeoutMs)
      .default(taskOutputDefaultTimeoutMs)
      .describe(
        `How long to wait in milliseconds (default ${taskOutputDefaultTimeoutMs}, max ${taskOutputMaxTimeoutMs})`,
      ),
  }),
);

/** Parsed TaskOutput input. */
export type TaskOutputInput = z.infer<ReturnType<typeof taskOutputInputSchema>>;

/** What TaskOutput returns. */
export interface TaskOutputResult {
  taskId: string;
  /** `timeout`: a blocking wait ended before the task did; `not_ready`: not blocking and still running. */
  retrieval: 'success' | 'timeout' | 'not_ready';
  status: BackgroundTaskStatus;
  exitCode: number | null;
  command: string;
  stdout: string;
  stderr: string;
  /** True when more unread output remains than one answer holds. */
  more: boolean;
  stdoutPath: string;
}

const maxCharsPerRead = 30_000;

function renderResult(output: TaskOutputResult): string {
  const lines = [`Task ${output.taskId} (${output.command}): ${output.status}`];
  if (output.exitCode !== null) lines[0] += `, exit code ${output.exitCode}`;
  if (output.retrieval === 'timeout')
    lines.push('Still running after the wait; call TaskOutput again to keep waiting.');
  if (output.retrieval === 'not_ready') lines.push('Still running.');
  const stdout = output.stdout.trimEnd();
  const stderr = output.stderr.trimEnd();
  if (stdout === '' && stderr === '') lines.push('(no new output)');
  if (stdout !== '') lines.push('<stdout>', stdout, '</stdout>');
  if (stderr !== '') lines.push('<stderr>', stderr, '</stderr>');
  if (output.more) lines.push(`More output is waiting: call TaskOutput again, or Read ${output.stdoutPath}.`);
  return lines.join('\n');
}

/** The TaskOutput tool. */
export const TaskOutputTool: Tool<TaskOutputInput, TaskOutputResult> = buildTool<
  TaskOutputInput,
  TaskOutputResult
>({
  name: taskOutputToolName,
  aliases: ['BashOutput'],
  searchHint: 'read output of a background shell task',
  get inputSchema() {
    return taskOutputInputSchema();
  },
  prompt: taskOutputPrompt,
  description: (input) => `Read output of task ${input.task_id ?? ''}`.trim(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  shouldDefer: true,
  async validateInput(input, context) {
    const message = unknownTaskMessage(context, input.task_id);
    return message === undefined ? { ok: true } : { ok: false, code: 'task_not_found', message };
  },
  async call(input, context) {
    const tasks = sessionTaskManager(context);
    let retrieval: TaskOutputResult['retrieval'] = 'success';
    if (tasks.get(input.task_id)?.status === 'running') {
      if (input.block) {
        const outcome = await tasks.waitFor(input.task_id, input.timeout, context.run.abortController.signal);
        if (outcome !== 'finished') retrieval = 'timeout';
      } else {
        retrieval = 'not_ready';
      }
    }
    const info = tasks.get(input.task_id);
    if (!info)
      throw new EfferentError(ErrorCodes.validationFailed, `No background task with id "${input.task_id}".`);
    const chunk = await tasks.readNew(input.task_id, maxCharsPerRead);
    return {
      data: {
        taskId: info.id,
        retrieval,
        status: info.status,
        exitCode: info.exitCode,
        command: info.command,
        stdout: chunk.stdout,
        stderr: chunk.stderr,
        more: chunk.more,
        stdoutPath: info.stdoutPath,
      },
    };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: renderResult(output),
  }),
});
