import { afterEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema, toolResultText } from '../../core/index.ts';
import {
  callTool,
  makeShellProject,
  type ShellProject,
  startBackgroundTask,
} from '../shared/process/test-shell.ts';
import { type TaskOutputResult, TaskOutputTool } from './task-output.ts';

let project: ShellProject;
afterEach(async () => project?.cleanup());

async function startBackground(command: string): Promise<string> {
  return startBackgroundTask(project, command);
}

async function readTask(input: Record<string, unknown>) {
  const { result } = await callTool<TaskOutputResult>(TaskOutputTool, input, project.context);
  return {
    data: result.data,
    text: toolResultText(TaskOutputTool.mapResultToBlock(result.data, 'toolu_test')),
  };
}

describe('TaskOutput', () => {
  it('has the reference schema and defaults', () => {
    const schema = toolInputJsonSchema(TaskOutputTool) as {
      properties: Record<string, { default?: unknown; maximum?: number }>;
    };
    expect(Object.keys(schema.properties).sort()).toEqual(['block', 'task_id', 'timeout']);
    expect(schema.properties['block']?.default).toBe(true);
    expect(schema.properties['timeout']?.default).toBe(30_000);
    expect(schema.properties['timeout']?.maximum).toBe(600_000);
    expect(TaskOutputTool.isReadOnly({ task_id: 'x', block: true, timeout: 1 })).toBe(true);
    expect(TaskOutputTool.aliases).toContain('BashOutput');
  });

  it('waits for a task to finish and returns its output, then only new output', async () => {
    project = makeShellProject();
    const id = await startBackground('echo one; sleep 0.3; echo two; echo warn >&2; exit 4');
    const first = await readTask({ task_id: id });
    expect(first.data).toMatchObject({
      retrieval: 'success',
      status: 'failed',
      exitCode: 4,
      stdout: 'one\ntwo\n',
      stderr: 'warn\n',
    });
    expect(first.text).toContain('failed, exit code 4');
    const second = await readTask({ task_id: id });
    expect(second.data.stdout).toBe('');
    expect(second.text).toContain('(no new output)');
  });

  it('returns at once without blocking, and reports a wait that timed out', async () => {
    project = makeShellProject();
    const id = await startBackground('echo early; sleep 5');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const peek = await readTask({ task_id: id, block: false });
    expect(peek.data).toMatchObject({ retrieval: 'not_ready', status: 'running', stdout: 'early\n' });
    const started = Date.now();
    const waited = await readTask({ task_id: id, timeout: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(waited.data.retrieval).toBe('timeout');
    expect(waited.text).toContain('call TaskOutput again');
  });

  it('pages output larger than one answer', async () => {
    project = makeShellProject();
    const id = await startBackground('seq 1 20000');
    const first = await readTask({ task_id: id });
    expect(first.data.more).toBe(true);
    let all = first.data.stdout;
    for (let page = 0; page < 10 && all.split('\n').length < 20001; page += 1)
      all += (await readTask({ task_id: id })).data.stdout;
    expect(all.split('\n')).toHaveLength(20001);
    expect(all.endsWith('20000\n')).toBe(true);
  });

  it('rejects unknown ids with the ids that exist', async () => {
    project = makeShellProject();
    const none = await TaskOutputTool.validateInput(
      { task_id: 'nope', block: true, timeout: 1 },
      project.context,
    );
    expect(none).toMatchObject({ ok: false, message: expect.stringContaining('has none') });
    const id = await startBackground('true');
    const other = await TaskOutputTool.validateInput(
      { task_id: 'nope', block: true, timeout: 1 },
      project.context,
    );
    expect(other).toMatchObject({ ok: false, message: expect.stringContaining(id) });
  });
});
