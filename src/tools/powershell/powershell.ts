import { accessSync, closeSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type Tool, lazySchema } from '../../core/index.ts';
import { createBeneath } from '../../core/session-files.ts';
import { canonicalPath, homeDirectory, workingDirectories } from '../shared/paths.ts';
import { backgroundTasksKey, newShellId } from '../shared/process/background-tasks.ts';
import { readCwdChange, startingDirectory, withCwd } from '../shared/process/cwd-tracking.ts';
import { childEnvironment, runCommand, type ShellProgress } from '../shared/process/run-command.ts';
import { sandboxExtras } from '../shared/process/hidden-paths.ts';
import { buildSandboxInvocation, probeSandbox } from '../shared/process/sandbox.ts';
import {
  collectOutput,
  removeUnreferencedOutput,
  defaultMaxInlineChars,
  type ShellOutput,
  shellResultBlock,
} from '../shared/process/shell-output.ts';
import { powerShellPrompt, powerShellToolName } from './powershell.prompt.ts';

/** PowerShell's input: the same contract as Bash, without the sandbox override. */
export const powerShellInputSchema = lazySchema(() =>
  z.strictObject({
    command: z.string().min(1).describe('The PowerShell command to run'),
    timeout: z.number().optional().describe('Optional timeout in milliseconds (default 120000, max 600000)'),
    description: z.string().optional().describe('What the command does, in 5-10 words of active voice'),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Run in the background and return a task id for TaskOutput'),
  }),
);

/** Parsed PowerShell input. */
export type PowerShellInput = z.infer<ReturnType<typeof powerShellInputSchema>>;

let cachedPwsh: string | null | undefined;

/** The absolute path of `pwsh` on PATH, or undefined; looked up once per process. */
export function findPwsh(): string | undefined {
  if (cachedPwsh === undefined) {
    cachedPwsh = null;
    for (const directory of (process.env['PATH'] ?? '').split(delimiter)) {
      if (directory === '') continue;
      const candidate = join(directory, 'pwsh');
      try {
        accessSync(candidate, constants.X_OK);
        cachedPwsh = candidate;
        break;
      } catch {
        // not here
      }
    }
  }
  return cachedPwsh ?? undefined;
}

/**
 * The script pwsh runs: the command arrives in an environment variable (never spliced into our
 * text), runs as a script block, and a `finally` writes the final location for cwd tracking.
 */
const wrapper = [
  '$__efferentCwdFile = $env:EFFERENT_PS_CWD_FILE',
  '$__efferentCommand = $env:EFFERENT_PS_COMMAND',
  'Remove-Item Env:EFFERENT_PS_COMMAND, Env:EFFERENT_PS_CWD_FILE',
  '$__efferentFailed = $false',
  'try { . ([ScriptBlock]::Create($__efferentCommand)); if (-not $?) { $__efferentFailed = $true } }',
  'catch { Write-Error $_; $__efferentFailed = $true }',
  'finally { [System.IO.File]::WriteAllText($__efferentCwdFile, (Get-Location).ProviderPath) }',
  'if ($LASTEXITCODE -is [int] -and $LASTEXITCODE -ne 0) { exit $LASTEXITCODE }',
  'if ($__efferentFailed) { exit 1 }',
  'exit 0',
].join('\n');

/** Makes a PowerShell tool; sandboxed like Bash where bubblewrap works (`sandbox: 'off'` disables). */
export function createPowerShellTool(
  options: { sandbox?: 'auto' | 'off' } = {},
): Tool<PowerShellInput, ShellOutput, ShellProgress> {
  const useSandbox = () => options.sandbox !== 'off' && probeSandbox().available;
  return buildTool<PowerShellInput, ShellOutput, ShellProgress>({
    name: powerShellToolName,
    searchHint: 'execute powershell commands',
    get inputSchema() {
      return powerShellInputSchema();
    },
    maxResultSizeChars: 30_000,
    prompt: () => powerShellPrompt({ sandboxed: useSandbox() }),
    description: (input) => input.description ?? input.command ?? 'Run PowerShell command',
    isEnabled: () => findPwsh() !== undefined,
    permissionTarget: (input) => ({ kind: 'command', command: input.command, shell: 'powershell' }),
    // No PowerShell analyser yet: every command is treated as possibly writing (fail closed).
    cancelsSiblingsOnError: () => true,
    toAutoClassifierInput: (input) => input.command,
    async call(input, context, _canUseTool, onProgress, toolUseId) {
      const pwsh = findPwsh();
      if (!pwsh)
        throw new EfferentError(ErrorCodes.toolFailed, 'pwsh is not installed here; use Bash instead.');
      const { cwd, note } = startingDirectory(context);
      const id = newShellId();
      const directory = join(context.run.sessionDir, 'shell');
      const stdoutPath = join(directory, `${id}.stdout`);
      const stderrPath = join(directory, `${id}.stderr`);
      const cwdFile = join(directory, `${id}.cwd`);
      // Created here, fresh and never through a link; the sandbox binds this one file writable.
      closeSync(createBeneath(context.run.sessionDir, `shell/${id}.cwd`));
      const inner = [pwsh, '-NoLogo', '-NoProfile', '-NonInteractive', '-Command', wrapper];
      const sandbox = useSandbox()
        ? buildSandboxInvocation(
            {
              writableDirectories: workingDirectories(context).map((path) => canonicalPath(path)),
              sessionDirectory: canonicalPath(context.run.sessionDir),
              homeDirectory: canonicalPath(homeDirectory(context)),
              allowNetwork: false,
              writableSessionFiles: [canonicalPath(cwdFile)],
              ...sandboxExtras(context),
            },
            cwd,
            inner,
          )
        : undefined;
      const tasks = context.run.resources?.get(backgroundTasksKey);
      const timeout =
        input.timeout !== undefined && input.timeout > 0 ? Math.min(input.timeout, 600_000) : 120_000;
      const outcome = await runCommand({
        id,
        command: input.command,
        file: sandbox?.file ?? pwsh,
        args: sandbox?.args ?? inner.slice(1),
        inheritedFds: sandbox?.inheritedFds ?? [],
        cwd,
        env: {
          ...childEnvironment(context.run.env),
          EFFERENT_PS_COMMAND: input.command,
          EFFERENT_PS_CWD_FILE: cwdFile,
        },
        stdoutPath,
        stderrPath,
        outputRoot: context.run.sessionDir,
        timeoutMs: timeout,
        signal: context.run.abortController.signal,
        background: input.run_in_background === true ? 'immediately' : 'on-timeout',
        onProgress: (data) => onProgress({ toolUseId, data }),
        onExit: () => sandbox?.cleanup(),
        ...(tasks ? { tasks } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      });
      const notes = note ? [note] : [];
      if (outcome.kind === 'background') {
        return {
          data: {
            stdout: '',
            stderr: '',
            exitCode: null,
            interrupted: false,
            isImage: false,
            backgroundTaskId: id,
            notes: [
              ...notes,
              `Command running in background with ID: ${id}. Output is being written to: ${stdoutPath}`,
            ],
          },
        };
      }
      if (outcome.exit.spawnError !== undefined) {
        throw new EfferentError(ErrorCodes.toolFailed, `Could not start pwsh: ${outcome.exit.spawnError}.`);
      }
      const collected = await collectOutput(stdoutPath, stderrPath, defaultMaxInlineChars);
      const data: ShellOutput = {
        ...collected,
        exitCode: outcome.exit.exitCode,
        interrupted: outcome.kind === 'interrupted',
        isError: outcome.exit.exitCode !== 0,
      };
      if (notes.length > 0) data.notes = notes;
      const change =
        outcome.kind === 'exited' ? await readCwdChange(cwdFile, context) : { kind: 'unchanged' as const };
      await rm(cwdFile, { force: true });
      await removeUnreferencedOutput(stdoutPath, stderrPath, data);
      if (change.kind === 'reset') data.cwdNote = change.note;
      return change.kind === 'unchanged' ? { data } : { data, contextModifier: withCwd(change.cwd) };
    },
    mapResultToBlock: (output, toolUseId) => shellResultBlock(output, toolUseId, powerShellToolName),
  });
}

/** The PowerShell tool with default options. */
export const PowerShellTool = createPowerShellTool();
