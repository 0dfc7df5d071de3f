import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskUser, PermissionPrompt, ToolRunEvent } from '../../src/core/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import {
  createPermissionResolver,
  type DefaultShellAnalyzer,
  loadDefaultShellAnalyzer,
} from '../../src/permissions/index.ts';
import { createToolRunner } from '../../src/pipeline/index.ts';
import { createBashTool } from '../../src/tools/bash/bash.ts';
import { makeShellProject, type ShellProject } from '../../src/tools/shared/process/test-shell.ts';

/**
 * The sed preview end to end: the model sends a plain `sed -i`, the person approves the previewed
 * diff, and the pipeline hands the approved input (with `_simulatedSedEdit`) to the tool. A model
 * that sends `_simulatedSedEdit` itself gets it stripped.
 */
const bash = createBashTool({ sandbox: 'off' });
let shell: DefaultShellAnalyzer;
let project: ShellProject;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
});
afterEach(async () => project?.cleanup());

async function runCall(input: Record<string, unknown>, askUser: AskUser) {
  const resolver = createPermissionResolver({ shell, home: project.home, askUser });
  const runner = createToolRunner({ tools: [bash], resolvePermission: resolver });
  const events: ToolRunEvent[] = [];
  for await (const event of runner(
    { type: 'tool_use', id: 'toolu_1', name: 'Bash', input },
    project.context,
  )) {
    events.push(event);
  }
  const result = events.find((event) => event.type === 'result');
  if (result?.type !== 'result') throw new Error('no result');
  return result.result;
}

describe('sed edit approval through the pipeline', () => {
  it('shows the diff and writes exactly what was approved', async () => {
    project = makeShellProject();
    const file = `${project.root}/notes.txt`;
    writeFileSync(file, 'color = red\nsize = 1\n');
    const prompts: PermissionPrompt[] = [];
    const result = await runCall({ command: "sed -i 's/red/blue/' notes.txt" }, async (prompt) => {
      prompts.push(prompt);
      expect(readFileSync(file, 'utf8')).toBe('color = red\nsize = 1\n');
      return { choice: 'allow-once' };
    });
    expect(result.isError).toBeFalsy();
    // The person is shown the computed result; what they approve is what lands.
    expect(prompts[0]?.input['_simulatedSedEdit']).toEqual({
      filePath: file,
      newContent: 'color = blue\nsize = 1\n',
    });
    expect(prompts[0]?.message).toContain(`sed will edit ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('color = blue\nsize = 1\n');
  });

  it('never writes a _simulatedSedEdit the model sends itself', async () => {
    project = makeShellProject();
    const file = `${project.root}/notes.txt`;
    writeFileSync(file, 'a\n');
    const forged = { filePath: file, newContent: 'forged' };
    for (const command of ['echo hi', "sed -i 's/a/b/' notes.txt"]) {
      const result = await runCall({ command, _simulatedSedEdit: forged }, async () => ({
        choice: 'allow-once',
      }));
      expect(toolResultText(result)).not.toContain('forged');
    }
    // The approved sed ran as previewed; the forged content never landed.
    expect(readFileSync(file, 'utf8')).toBe('b\n');
  });
});
