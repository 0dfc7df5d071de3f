import type { ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  buildTool,
  EfferentError,
  ErrorCodes,
  type Tool,
  type ToolPermissionResult,
  type ToolProgress,
  type ToolResult,
  type ToolUseContext,
  lazySchema,
} from '../../core/index.ts';
import { createBeneath } from '../../core/session-files.ts';
import { canonicalPath, homeDirectory, workingDirectories } from '../shared/paths.ts';
import { backgroundTasksKey, newShellId } from '../shared/process/background-tasks.ts';
import {
  shellEnvironment,
  type RunCommandOutcome,
  runCommand,
  type ShellProgress,
} from '../shared/process/run-command.ts';
import { sandboxExtras } from '../shared/process/hidden-paths.ts';
import { probeSandbox, type SandboxAvailability } from '../shared/process/sandbox.ts';
import { type SandboxConfiguration, startCallProxy } from '../../sandbox/config.ts';
import { type RepositoryGuardReport, startRepositoryGuard } from '../../sandbox/repository-guard.ts';
import { defaultMaxOutputBytes } from '../shared/process/shell-run.ts';
import { buildBashInvocation, type SandboxMode, sessionNoticesKey } from './bash-invocation.ts';
import {
  collectOutput,
  removeUnreferencedOutput,
  defaultMaxInlineChars,
  type ShellOutput,
  shellResultBlock,
} from '../shared/process/shell-output.ts';
import {
  type BashLimits,
  bashDefaultTimeoutMs,
  bashLimits,
  bashMaxTimeoutMs,
  bashPrompt,
  bashToolName,
} from './bash.prompt.ts';
import { interpretExitCode } from './command-semantics.ts';
import { withGitSafety } from './git-safety-env.ts';
import { readCwdChange, startingDirectory, withCwd } from '../shared/process/cwd-tracking.ts';
import { applySimulatedSedEdit, previewSedEdit } from './sed-permission.ts';
import {
  isReadOnlyBash,
  isReadOnlyPrepared,
  lastCommandArgv,
  mayMoveToBackground,
  parseCommandLine,
  prepareShellAnalysis,
} from './shell-analysis.ts';
import { isPreparedShellCommand, type PreparedShellCommand, prepareShellCommand } from '../../shell/index.ts';

/** The Bash tool's input. `_simulatedSedEdit` is internal: set only by an approved sed preview. */
export const bashInputSchema = lazySchema(() =>
  z.strictObject({
    command: z.string().min(1).describe('The command to run'),
    timeout: z
      .number()
      .optional()
      .describe(
        `Optional timeout in milliseconds (default ${bashDefaultTimeoutMs}, max ${bashMaxTimeoutMs})`,
      ),
    description: z.string().optional().describe('What the command does, in 5-10 words of active voice'),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Run the command in the background and return a task id to read with TaskOutput'),
    dangerouslyDisableSandbox: z
      .boolean()
      .optional()
      .describe('Run outside the OS sandbox (the user is asked to approve)'),
    _simulatedSedEdit: z
      .object({ filePath: z.string(), newContent: z.string() })
      .optional()
      .describe('Internal: the approved result of a sed edit preview'),
  }),
);

/** What a Bash call returns. */
export type BashOutput = ShellOutput;

/** Parsed Bash input. */
export type BashInput = z.infer<ReturnType<typeof bashInputSchema>>;

/** How a Bash tool instance runs commands. */
export interface BashToolOptions {
  /** `auto` (default): sandbox when bwrap works; `off`: never; `required`: refuse to run without it. */
  sandbox?: SandboxMode;
  /** Let sandboxed commands use the network (default false). */
  allowNetwork?: boolean;
  /** Let sandboxed commands without network open Unix sockets (default false: host daemons stay out of reach). */
  allowUnixSockets?: boolean;
  /** Kill a command whose output passes this many bytes (default 5 GiB). */
  maxOutputBytes?: number;
  /** Characters of output shown inline before the rest goes to a file (default `BASH_MAX_OUTPUT_LENGTH`, else 30,000). */
  maxInlineChars?: number;
  /** How often progress is reported while a command runs (default 1000 ms). */
  progressIntervalMs?: number;
  /** Grace between SIGTERM and SIGKILL (default 2000 ms). */
  killGraceMs?: number;
  /** The bash binary (default `bash` from PATH). */
  shell?: string;
  /** Decides whether bwrap works (default: probe once per process); embedders and tests may override. */
  sandboxProbe?: () => SandboxAvailability;
  /** The network allowlist for sandboxed commands (default: the session's `sandbox.network` settings). */
  sandboxNetwork?: SandboxConfiguration;
  /** Which sandbox backend to use (`darwin`: Seatbelt, else bubblewrap); default this machine's. */
  sandboxPlatform?: NodeJS.Platform;
}

/**
 * Clamps a requested timeout to the allowed range: the default (`BASH_DEFAULT_TIMEOUT_MS`) when none
 * is given, at most the ceiling (`BASH_MAX_TIMEOUT_MS`); `limits` come from {@link bashLimits}.
 */
export function effectiveTimeout(
  timeout: number | undefined,
  limits: Pick<BashLimits, 'defaultTimeoutMs' | 'maxTimeoutMs'> = {
    defaultTimeoutMs: bashDefaultTimeoutMs,
    maxTimeoutMs: bashMaxTimeoutMs,
  },
): number {
  if (timeout === undefined || !Number.isFinite(timeout) || timeout <= 0) return limits.defaultTimeoutMs;
  return Math.min(Math.floor(timeout), limits.maxTimeoutMs);
}

/** Makes a Bash tool; `BashTool` is the default instance. */
export function createBashTool(options: BashToolOptions = {}): Tool<BashInput, ShellOutput, ShellProgress> {
  const mode = options.sandbox ?? 'auto';
  const allowNetwork = options.allowNetwork ?? false;
  const probe = options.sandboxProbe ?? probeSandbox;
  const platform = options.sandboxPlatform ?? process.platform;

  async function run(
    input: BashInput,
    context: ToolUseContext,
    onProgress: (progress: ShellProgress) => void,
    prepared: PreparedShellCommand | undefined,
  ): Promise<ToolResult<ShellOutput>> {
    const start = startingDirectory(context);
    // Bash starts in the physical directory, and its $PWD says so (see shellEnvironment).
    const cwd = canonicalPath(start.cwd);
    const startNote = start.note;
    const id = newShellId();
    const sessionDir = context.run.sessionDir;
    const directory = join(sessionDir, 'shell');
    const stdoutPath = join(directory, `${id}.stdout`);
    const stderrPath = join(directory, `${id}.stderr`);
    const cwdFile = join(directory, `${id}.cwd`);
    // Created here, fresh and never through a link; the sandbox binds this one file writable.
    closeSync(createBeneath(sessionDir, `shell/${id}.cwd`));
    const sandboxWanted = mode !== 'off' && input.dangerouslyDisableSandbox !== true;
    const extras = sandboxWanted ? sandboxExtras(context) : undefined;
    const proxy =
      sandboxWanted && !allowNetwork && probe().available
        ? await startCallProxy(context, options.sandboxNetwork, platform)
        : undefined;
    const invocation = buildBashInvocation({
      command: input.command,
      cwdFile,
      cwd,
      shell: options.shell ?? 'bash',
      mode,
      disableSandbox: input.dangerouslyDisableSandbox === true,
      probe,
      backend: { platform, ...(proxy?.loopbackPort ? { proxyPort: proxy.loopbackPort } : {}) },
      policy: {
        writableDirectories: workingDirectories(context).map((path) => canonicalPath(path)),
        sessionDirectory: canonicalPath(sessionDir),
        homeDirectory: canonicalPath(homeDirectory(context)),
        allowNetwork,
        allowUnixSockets: options.allowUnixSockets ?? false,
        writableSessionFiles: [canonicalPath(cwdFile)],
        ...(extras ?? {}),
        ...(proxy ? { networkProxy: true } : {}),
      },
    });
    const releaseProxy = () => void proxy?.close();
    // The session's private /tmp: host folders only commands write, which links must not lead into.
    const commandOnly = extras?.privateTmpDirectory ? [extras.privateTmpDirectory] : [];
    // Repository metadata the command leaves in its writable folders is judged once it has ended.
    const guard =
      invocation.sandboxed && platform !== 'darwin'
        ? startRepositoryGuard(workingDirectories(context).map((path) => canonicalPath(path)))
        : undefined;
    let guardReport: RepositoryGuardReport | undefined;
    const finishGuard = () => {
      guardReport ??= guard?.finish(
        invocation.protectedGitDirectories,
        invocation.readOnlyPaths,
        commandOnly,
      );
      return guardReport;
    };
    const notes: string[] = [];
    if (startNote) notes.push(startNote);
    if (invocation.sandboxUnavailableReason !== undefined) {
      if (mode === 'required') {
        throw new EfferentError(
          ErrorCodes.sandboxUnavailable,
          `Commands must run in the OS sandbox, but ${invocation.sandboxUnavailableReason}. Nothing was run; ask the user to install bubblewrap or change the sandbox setting.`,
        );
      }
      const notices = context.run.resources?.get(sessionNoticesKey);
      if (!notices || notices.firstTime('sandbox-unavailable')) {
        notes.push(
          `Note: no OS sandbox (${invocation.sandboxUnavailableReason}); commands run with the user's full permissions.`,
        );
      }
    }

    const tasks = context.run.resources?.get(backgroundTasksKey);
    const inBackground = input.run_in_background === true;
    if (inBackground && !tasks) {
      invocation.cleanup();
      releaseProxy();
      throw new EfferentError(
        ErrorCodes.toolFailed,
        'Background commands need a session (context.run.resources); run the command without run_in_background.',
      );
    }
    const parse = await parseCommandLine(input.command, prepared);
    // Which commands a line runs, and whether they only read, is the same from any directory.
    const readOnly = prepared ? isReadOnlyPrepared(prepared) : isReadOnlyBash(input.command, cwd);
    // The session's environment (the process's overlaid by settings `env`) sets the limits.
    const limits = bashLimits(context.run.env);
    const timeoutMs = effectiveTimeout(input.timeout, limits);
    const maxInlineChars = options.maxInlineChars ?? limits.maxOutputLength ?? defaultMaxInlineChars;
    const request = {
      id,
      command: input.command,
      file: invocation.file,
      args: invocation.args,
      inheritedFds: invocation.inheritedFds,
      cwd,
      env: withGitSafety(shellEnvironment(context.run.env, cwd), readOnly),
      stdoutPath,
      stderrPath,
      outputRoot: sessionDir,
      maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
      timeoutMs,
      signal: context.run.abortController.signal,
      background: inBackground
        ? 'immediately'
        : mayMoveToBackground(input.command, parse)
          ? 'on-timeout'
          : 'never',
      onProgress,
      onExit: () => {
        finishGuard();
        invocation.cleanup();
        releaseProxy();
      },
      ...(proxy && invocation.needsIpc
        ? { onSpawnWithIpc: (child: ChildProcess) => proxy.attach(child) }
        : {}),
      ...(tasks ? { tasks } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    } as const;
    const outcome: RunCommandOutcome = await runCommand(request);

    if (outcome.kind === 'background') {
      const where = `Output is being written to: ${stdoutPath} (stderr: ${stderrPath}). Read it with TaskOutput, stop it with TaskStop.`;
      const collected =
        outcome.reason === 'timeout'
          ? await collectOutput(stdoutPath, stderrPath, maxInlineChars)
          : undefined;
      const intro =
        outcome.reason === 'timeout'
          ? `Command did not finish within ${timeoutMs} ms and was moved to the background with ID: ${id}.`
          : `Command running in background with ID: ${id}.`;
      return {
        data: {
          stdout: collected?.stdout ?? '',
          stderr: collected?.stderr ?? '',
          exitCode: null,
          interrupted: false,
          isImage: false,
          backgroundTaskId: id,
          notes: [...notes, `${intro} ${where}`],
        },
      };
    }

    const { exit } = outcome;
    if (exit.spawnError !== undefined) {
      throw new EfferentError(ErrorCodes.toolFailed, `Could not start bash: ${exit.spawnError}.`);
    }
    const collected = await collectOutput(stdoutPath, stderrPath, maxInlineChars);
    const data: ShellOutput = { ...collected, exitCode: exit.exitCode, interrupted: false };
    if (outcome.kind === 'interrupted') {
      data.interrupted = true;
      if (outcome.reason === 'timeout')
        notes.push(`Command timed out after ${timeoutMs} ms and was stopped.`);
    } else if (exit.stopReason === 'output-limit') {
      data.interrupted = true;
      notes.push(
        `Command was stopped: its output passed ${(options.maxOutputBytes ?? defaultMaxOutputBytes).toLocaleString('en-US')} bytes. Redirect large output to a file, or filter it (head, grep).`,
      );
    } else {
      const interpretation = interpretExitCode(lastCommandArgv(parse, input.command), exit.exitCode);
      data.isError = interpretation.isError;
      if (interpretation.meaning !== undefined) data.returnCodeInterpretation = interpretation.meaning;
    }
    if (exit.signal !== null && !data.interrupted) notes.push(`Command was killed by ${exit.signal}.`);
    // Every connection the sandbox refused, so the model asks instead of retrying.
    if (proxy) notes.push(...proxy.blocked);
    notes.push(...(finishGuard()?.notes ?? []));
    if (notes.length > 0) data.notes = notes;

    const result: ToolResult<ShellOutput> = { data };
    if (outcome.kind === 'exited') {
      const change = await readCwdChange(cwdFile, context);
      if (change.kind !== 'unchanged') result.contextModifier = withCwd(change.cwd);
      if (change.kind === 'reset') data.cwdNote = change.note;
      else if (change.kind === 'unchanged' && start.cwd !== context.run.cwd)
        result.contextModifier = withCwd(start.cwd);
    }
    await rm(cwdFile, { force: true });
    // Small outputs are fully in the result; large ones stay on disk for the model to read.
    await removeUnreferencedOutput(stdoutPath, stderrPath, data);
    return result;
  }

  async function checkBashPermissions(
    input: BashInput,
    context: ToolUseContext,
    prepared: PreparedShellCommand | undefined,
  ): Promise<ToolPermissionResult> {
    if (input.dangerouslyDisableSandbox === true && mode !== 'off' && probe().available) {
      return {
        behavior: 'ask',
        message:
          'The command asks to run outside the OS sandbox (dangerouslyDisableSandbox), with full access to files and network.',
        classifierApprovable: false,
      };
    }
    // In acceptEdits the person has approved edits in advance: sed is one of the file commands the
    // engine allows there inside the working directories (and still asks about outside or protected
    // files), so there is no preview to approve.
    if (context.run.permissionMode === 'acceptEdits') return { behavior: 'passthrough' };
    const preview = await previewSedEdit(input.command, context, prepared);
    if (!preview) return { behavior: 'passthrough' };
    return {
      behavior: 'ask',
      message: `sed will edit ${preview.filePath}`,
      preview: preview.diff === '' ? '(sed would not change the file)' : preview.diff,
      updatedInput: {
        ...input,
        _simulatedSedEdit: { filePath: preview.filePath, newContent: preview.newContent },
      },
    };
  }

  async function callBash(
    input: BashInput,
    context: ToolUseContext,
    onProgress: (progress: ToolProgress<ShellProgress>) => void,
    toolUseId: string,
    prepared: PreparedShellCommand | undefined,
  ): Promise<ToolResult<ShellOutput>> {
    if (input._simulatedSedEdit) {
      await applySimulatedSedEdit(input.command, input._simulatedSedEdit, context, prepared);
      return {
        data: { stdout: '', stderr: '', exitCode: 0, interrupted: false, isImage: false, isError: false },
      };
    }
    return run(input, context, (data) => onProgress({ toolUseId, data }), prepared);
  }

  return buildTool<BashInput, ShellOutput, ShellProgress>({
    name: bashToolName,
    searchHint: 'execute shell commands',
    get inputSchema() {
      return bashInputSchema();
    },
    maxResultSizeChars: 30_000,
    prompt: () => {
      const sandbox = mode === 'off' ? 'off' : probe().available ? 'on' : 'unavailable';
      return bashPrompt({ sandbox, allowNetwork });
    },
    description: (input) => input.description ?? input.command ?? 'Run shell command',
    userFacingName: () => bashToolName,
    permissionTarget: (input) => ({ kind: 'command', command: input.command, shell: 'bash' }),
    isReadOnly: (input) => input._simulatedSedEdit === undefined && isReadOnlyBash(input.command),
    isConcurrencySafe: (input) => input._simulatedSedEdit === undefined && isReadOnlyBash(input.command),
    cancelsSiblingsOnError: (input) => !isReadOnlyBash(input.command),
    // As the reference: a new user message waits for a running command rather than killing it;
    // an explicit abort (the run's AbortSignal) still stops the whole process group.
    interruptBehavior: () => 'block',
    toAutoClassifierInput: (input) => input.command,
    async validateInput(input) {
      await prepareShellAnalysis();
      if (input.command.trim() === '')
        return { ok: false, message: 'The command is empty.', code: 'empty_command' };
      return { ok: true };
    },
    checkPermissions: (input, context) => checkBashPermissions(input, context, undefined),
    call: (input, context, _canUseTool, onProgress, toolUseId) =>
      callBash(input, context, onProgress, toolUseId, undefined),
    // One analysis per call: every later question about this input reads it (see PreparedCall).
    prepare(input, context, reuse) {
      const prior = reuse.shellAnalysis;
      const shell =
        isPreparedShellCommand(prior) && prior.command === input.command
          ? prior
          : prepareShellCommand(input.command, { cwd: context.run.cwd, home: homeDirectory(context) });
      // Methods rather than arrow functions: esbuild with keepNames (tsx, which runs the benches and
      // tests) would name each arrow with a defineProperty per call; the methods are named already.
      return {
        shellAnalysis: shell,
        permissionTarget() {
          return { kind: 'command', command: input.command, shell: 'bash', analysis: shell };
        },
        isReadOnly() {
          return input._simulatedSedEdit === undefined && isReadOnlyPrepared(shell);
        },
        isConcurrencySafe() {
          return input._simulatedSedEdit === undefined && isReadOnlyPrepared(shell);
        },
        cancelsSiblingsOnError() {
          return !isReadOnlyPrepared(shell);
        },
        checkPermissions(callContext) {
          return checkBashPermissions(input, callContext, shell);
        },
        call(callContext, _canUseTool, onProgress, toolUseId) {
          return callBash(input, callContext, onProgress, toolUseId, shell);
        },
      };
    },
    mapResultToBlock: (output, toolUseId) => shellResultBlock(output, toolUseId, bashToolName),
    renderToolUse: (input) => input.command ?? '',
  });
}

/** The Bash tool with default options: sandboxed where bubblewrap works. */
export const BashTool = createBashTool();
