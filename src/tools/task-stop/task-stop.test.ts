import { afterEach, describe, expect, it } from 'vitest';
import { toolResultText } from '../../core/index.ts';
import {
  callTool,
  delay,
  makeShellProject,
  processesMatching,
  type ShellProject,
  startBackgroundTask,
  waitUntilGone,
} from '../shared/process/test-shell.ts';
import { type TaskStopResult, TaskStopTool } from './task-stop.ts';

let project: ShellProject;
afterEach(async () => project?.cleanup());

describe('TaskStop', () => {
  it('stops a background task and every process it started, SIGTERM-proof ones included', async () => {
    project = makeShellProject();
    const marker = `${100 + Math.floor(Math.random() * 800)}.${process.pid}4`;
    const id = startBackgroundTask(project, `(trap '' TERM; sleep ${marker}) & sleep ${marker}`, {
      killGraceMs: 300,
    });
    await delay(300);
    expect(processesMatching(`sleep ${marker}`).length).toBe(2);
    const stopped = await callTool<TaskStopResult>(TaskStopTool, { task_id: id }, project.context);
    expect(stopped.result.data).toMatchObject({ previousStatus: 'running', status: 'killed' });
    expect(toolResultText(TaskStopTool.mapResultToBlock(stopped.result.data, 't'))).toContain(
      `Stopped task ${id}`,
    );
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('accepts the deprecated shell_id and says when the task had already ended', async () => {
    project = makeShellProject();
    const id = startBackgroundTask(project, 'true');
    await delay(200);
    const stopped = await callTool<TaskStopResult>(TaskStopTool, { shell_id: id }, project.context);
    expect(stopped.result.data).toMatchObject({ previousStatus: 'completed', status: 'completed' });
  });

  it('rejects a missing or unknown id', async () => {
    project = makeShellProject();
    expect(await TaskStopTool.validateInput({}, project.context)).toMatchObject({
      ok: false,
      code: 'missing_task_id',
    });
    expect(await TaskStopTool.validateInput({ task_id: 'b0000000' }, project.context)).toMatchObject({
      ok: false,
      code: 'task_not_found',
    });
  });
});
