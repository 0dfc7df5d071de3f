import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolUseContext, toolInputJsonSchema, toolResultText } from '../../core/index.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { createPowerShellTool, findPwsh, PowerShellTool } from './powershell.ts';

describe('PowerShell contract', () => {
  it('has the Bash contract without the sandbox override, and is enabled only where pwsh exists', () => {
    const schema = toolInputJsonSchema(PowerShellTool) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual([
      'command',
      'description',
      'run_in_background',
      'timeout',
    ]);
    expect(PowerShellTool.isEnabled()).toBe(findPwsh() !== undefined);
    expect(PowerShellTool.isReadOnly({ command: 'Get-ChildItem' })).toBe(false);
    expect(
      PowerShellTool.permissionTarget({ command: 'ls' }, createToolUseContext({ cwd: '/' })),
    ).toMatchObject({
      shell: 'powershell',
    });
  });
});

const pwsh = findPwsh();
describe.skipIf(pwsh === undefined)(
  `PowerShell runs commands${pwsh ? '' : ' (skipped: pwsh is not on PATH)'}`,
  () => {
    const tool = createPowerShellTool({ sandbox: 'off' });
    let project: ShellProject;
    afterEach(async () => project?.cleanup());

    it('returns output and exit codes, and keeps Set-Location inside the project', async () => {
      project = makeShellProject();
      writeFileSync(join(project.root, 'a.txt'), 'x');
      const listed = await callTool<ShellOutput>(tool, { command: 'Get-ChildItem -Name' }, project.context);
      expect(listed.result.data.stdout.trim()).toBe('a.txt');
      const failed = await callTool<ShellOutput>(tool, { command: 'exit 3' }, project.context);
      expect(failed.result.data.exitCode).toBe(3);
      expect(toolResultText(tool.mapResultToBlock(failed.result.data, 't'))).toContain('Exit code 3');
    });
  },
);
