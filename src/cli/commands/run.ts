import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import {
  configurationLocations,
  type Session,
  sessionConfiguration,
  trustWorkspace,
} from '../../agent/index.ts';
import { EfferentError, type Message } from '../../core/index.ts';
import { type OutputFormat, runHeadless } from '../terminal/headless.ts';
import { readPromptFromStdin, streamJsonInputs } from '../terminal/headless-input.ts';
import { runInteractive } from '../terminal/interactive.ts';
import { LineInput } from '../terminal/line-input.ts';
import { createTerminalElicit, openSession } from '../terminal/mcp-session.ts';
import { TerminalPermissionPrompts } from '../terminal/permission-prompt.ts';
import { chooseModelSpec, resolveProvider } from '../terminal/resolve-provider.ts';
import { runStatusLine, statusLineSetting } from '../terminal/status-line.ts';
import { deleteOldTranscripts } from '../terminal/transcript-cleanup.ts';
import {
  addSessionFlags,
  isTrustNotice,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';
import { commandFolders, loadCustomCommands } from '../terminal/slash-commands.ts';
import { defaultSystemPrompt, memoryFilePaths, readMemoryFiles } from '../terminal/system-prompt.ts';
import {
  efferentConfigDir,
  findSession,
  listSessions,
  loadTranscript,
  projectTranscriptDir,
  type SavedSession,
  Transcript,
} from '../terminal/transcript.ts';

interface RunFlags extends SessionFlags {
  print?: string | true;
  outputFormat: OutputFormat;
  inputFormat: 'text' | 'stream-json';
  includePartialMessages?: boolean;
  verbose?: boolean;
  model?: string;
  maxTurns: string;
  maxTokens?: string;
  maxRetries?: string;
  systemPrompt?: string;
  continue?: boolean;
  resume?: string | true;
}

/**
 * Saves the session's transcript (`<config>/projects/<project>/<session>.jsonl`) and puts its path on
 * the context (`run.transcriptPath`, what hooks report as `transcript_path`). A resumed conversation
 * is copied in first, so the new session's file is complete on its own.
 */
function startTranscript(session: Session, history: readonly Message[]): Transcript {
  const run = session.context.run;
  const path = join(
    projectTranscriptDir(
      efferentConfigDir(process.env, configurationLocations(run).home, [run.cwd]),
      run.cwd,
    ),
    `${run.sessionId}.jsonl`,
  );
  run.transcriptPath = path;
  const transcript = new Transcript(path, run.sessionId, run.cwd);
  for (const message of history) void transcript.append(message);
  return transcript;
}

/** Ends the session and removes its folder under the temporary directory (output files, persisted results). */
async function closeSession(session: Session, transcript?: Transcript): Promise<void> {
  try {
    await session.dispose();
  } finally {
    await transcript?.flushed().catch(() => undefined);
    const dir = session.context.run.sessionDir;
    const inside = relative(tmpdir(), dir);
    if (inside !== '' && !inside.startsWith('..')) await rm(dir, { recursive: true, force: true });
  }
}

/** The earlier conversation `--continue` or `--resume` asks for; `pick` chooses when no id was given. */
async function resumedHistory(
  flags: RunFlags,
  cwd: string,
  pick: ((sessions: SavedSession[]) => Promise<SavedSession | undefined>) | undefined,
  errors: Writable,
): Promise<Message[]> {
  if (flags.continue && flags.resume !== undefined)
    throw new EfferentError('usage', 'Give either --continue or --resume, not both.');
  const configDir = efferentConfigDir(process.env, configurationLocations({ cwd }).home, [cwd]);
  let chosen: SavedSession | undefined;
  if (flags.continue) {
    chosen = (await listSessions(configDir, cwd))[0];
    if (!chosen) errors.write(`notice: no earlier session for ${cwd}; starting a new one.\n`);
  } else if (typeof flags.resume === 'string') chosen = await findSession(configDir, cwd, flags.resume);
  else if (flags.resume === true) {
    const sessions = await listSessions(configDir, cwd);
    if (sessions.length === 0)
      throw new EfferentError('usage', `No saved sessions for ${cwd}; start one with efferent run.`);
    if (!pick)
      throw new EfferentError(
        'usage',
        'Give the session to resume: --resume ID (efferent run --resume lists them).',
      );
    chosen = await pick(sessions);
  }
  return chosen ? loadTranscript(chosen.path) : [];
}

function positiveInteger(flag: string, text: string, minimum = 1): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) {
    throw new EfferentError(
      'usage',
      `${flag} must be ${minimum === 0 ? 'a whole number (0 or more)' : 'a positive integer'}, not "${text}".`,
    );
  }
  return value;
}

/** `--max-retries`, else EFFERENT_MAX_RETRIES, else the loop's default. */
function maxRetriesFrom(
  flags: RunFlags,
  env: Readonly<Record<string, string | undefined>>,
): number | undefined {
  if (flags.maxRetries !== undefined) return positiveInteger('--max-retries', flags.maxRetries, 0);
  const fromEnv = env['EFFERENT_MAX_RETRIES'];
  if (fromEnv !== undefined && fromEnv !== '') return positiveInteger('EFFERENT_MAX_RETRIES', fromEnv, 0);
  return undefined;
}

/** The settings `statusLine` for the interactive terminal: its command gets Claude Code's status JSON. */
function statusLineOption(
  session: Session,
  model: string,
): { statusLine?: () => Promise<string | undefined> } {
  const setting = statusLineSetting(session.settings.statusLine);
  if (!setting) return {};
  return {
    statusLine: () => {
      const run = session.context.run;
      return runStatusLine(
        setting,
        {
          hook_event_name: 'Status',
          session_id: run.sessionId,
          transcript_path: run.transcriptPath ?? '',
          cwd: run.cwd,
          model: { id: model, display_name: model },
          workspace: { current_dir: run.cwd, project_dir: session.settings.projectRoot },
          version: process.env['npm_package_version'] ?? '',
          output_style: { name: 'default' },
        },
        { cwd: run.cwd, env: run.env },
      );
    },
  };
}

/** A reader that closed the pipe (`| head -1`) ends the run quietly: no EPIPE stack trace. */
function onClosedPipe(stop: () => void): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      stop();
    });
  }
}

/** `efferent run`: an agent on efferent's tools, headless with -p or as an interactive terminal session. */
export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description('Run an agent on efferent: headless with -p PROMPT, otherwise an interactive session.')
    .option(
      '-p, --print [prompt]',
      'run without a person and print the result (the prompt may come on stdin)',
    )
    .addOption(
      new Option('--output-format <format>', 'headless output')
        .choices(['text', 'json', 'stream-json'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--input-format <format>',
        'headless input: one prompt, or stream-json user messages on stdin',
      )
        .choices(['text', 'stream-json'])
        .default('text'),
    )
    .option('--include-partial-messages', 'stream-json: also write the raw API stream events')
    .option('--verbose', 'accepted for Claude Code compatibility (stream-json is always complete)')
    .option(
      '--model <provider:name>',
      'anthropic:NAME, openai:NAME or replay:FILE (default: from the API keys set)',
    )
    .option('--max-turns <n>', 'model turns before the run stops', '50')
    .option('--max-tokens <n>', 'output token limit of each model response (raised when a tool call is cut)')
    .option('--max-retries <n>', 'retries of a failed model request (default 10, or EFFERENT_MAX_RETRIES)')
    .option('--system-prompt <text>', 'replace the default system prompt')
    .option('-c, --continue', "continue this project's latest session")
    .option('-r, --resume [id]', 'resume a saved session (without an id: pick one)');
  addSessionFlags(command).action(async (flags: RunFlags) => {
    const base = await resolveTrust(flags, sessionOptionsFromFlags(flags));
    const cwd = base.cwd;
    const maxTurns = positiveInteger('--max-turns', flags.maxTurns);
    const maxTokens =
      flags.maxTokens === undefined ? undefined : positiveInteger('--max-tokens', flags.maxTokens);
    // Settings `env` and `model` choose the provider as the shell's variables do (settings winning).
    const configuration = await sessionConfiguration(base);
    const env = configuration.env;
    const maxRetries = maxRetriesFrom(flags, env);
    const limits = {
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    };
    const provider = await resolveProvider(
      chooseModelSpec(flags.model, env, configuration.model),
      env,
      process.cwd(),
    );
    const configDir = efferentConfigDir(process.env, configurationLocations(base).home, [cwd]);
    // `cleanupPeriodDays`: older saved transcripts go before this session starts.
    if (configuration.cleanupPeriodDays)
      await deleteOldTranscripts(configDir, configuration.cleanupPeriodDays);
    const memory = readMemoryFiles(
      memoryFilePaths({ projectRoot: cwd, configDir, home: configurationLocations(base).home }),
      {
        projectRoot: cwd,
        onSkipped: (reason) => process.stderr.write(`efferent: ${reason}\n`),
      },
    );
    const systemPrompt = flags.systemPrompt ?? defaultSystemPrompt({ cwd, memory });
    const sessionOptions = { ...base, model: provider.model };
    if (flags.print !== undefined || flags.inputFormat === 'stream-json') {
      const streamed = flags.inputFormat === 'stream-json';
      const prompt = streamed
        ? undefined
        : typeof flags.print === 'string'
          ? flags.print
          : await readPromptFromStdin(process.stdin);
      const history = await resumedHistory(flags, cwd, undefined, process.stderr);
      const session = await openSession(sessionOptions, flags);
      reportSettingsNotices(session.settings.notices, flags);
      const transcript = startTranscript(session, history);
      // SIGINT and SIGTERM stop every running tool (their process groups are killed), the result
      // line is still written, and the exit code is 130. A third signal exits at once.
      const controller = new AbortController();
      let signals = 0;
      let pipeClosed = false;
      const onInterrupt = () => {
        signals += 1;
        if (signals >= 3) process.exit(130);
        controller.abort(new Error('Interrupted by a signal.'));
      };
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      onClosedPipe(() => {
        pipeClosed = true;
        controller.abort(new Error('The output pipe was closed.'));
      });
      try {
        const code = await runHeadless({
          provider,
          session,
          systemPrompt,
          ...(prompt === undefined
            ? { inputs: streamJsonInputs(process.stdin, process.stderr) }
            : { prompt }),
          format: flags.outputFormat,
          maxTurns,
          ...limits,
          output: process.stdout,
          errors: process.stderr,
          signal: controller.signal,
          includePartialMessages: flags.includePartialMessages === true,
          apiKeySource: provider.name === 'replay' ? 'none' : 'environment',
          version: process.env['npm_package_version'] ?? '',
          history,
          onMessage: (message) => void transcript.append(message),
        });
        process.exitCode = pipeClosed ? 0 : controller.signal.aborted ? 130 : code;
      } finally {
        await closeSession(session, transcript);
        process.off('SIGINT', onInterrupt);
        process.off('SIGTERM', onInterrupt);
      }
      return;
    }
    const input = new LineInput(process.stdin, process.stdout);
    const history = await resumedHistory(
      flags,
      cwd,
      async (sessions) => {
        const shown = sessions.slice(0, 20);
        process.stdout.write(
          `${shown.map((each, index) => `  ${index + 1}) ${each.modified.toISOString().slice(0, 16).replace('T', ' ')}  ${each.firstPrompt || '(no prompt)'}  ${each.id}`).join('\n')}\n`,
        );
        const answer = await input.question(`Resume which session? [1-${shown.length}] `, process.stdout);
        const chosen = shown[Number(answer?.trim()) - 1];
        if (!chosen)
          throw new EfferentError(
            'usage',
            `No session "${answer?.trim() ?? ''}"; give a number from the list.`,
          );
        return chosen;
      },
      process.stderr,
    );
    const prompts = new TerminalPermissionPrompts(input, process.stdout);
    const askUser = prompts.askUser;
    const interaction = { elicit: createTerminalElicit(input, process.stdout), authorizeOn: process.stderr };
    let session = await openSession({ ...sessionOptions, askUser }, flags, process.stderr, interaction);
    if (!flags.untrusted && session.settings.notices.some(isTrustNotice)) {
      // The folder has its own settings that can allow commands and run hooks: ask once, remember the answer.
      const answer = await input.question(
        'This folder has efferent settings that can allow commands and run hooks. Trust it? [y/N] ',
        process.stdout,
      );
      if (answer !== null && /^y(es)?$/i.test(answer.trim())) {
        await closeSession(session);
        await trustWorkspace(configurationLocations(sessionOptions).home, cwd);
        session = await openSession(
          { ...sessionOptions, askUser, trusted: true },
          flags,
          process.stderr,
          interaction,
        );
      }
    }
    reportSettingsNotices(session.settings.notices, flags);
    const transcript = startTranscript(session, history);
    try {
      process.exitCode = await runInteractive({
        provider,
        session,
        systemPrompt,
        maxTurns,
        ...limits,
        input,
        output: process.stdout,
        prompts,
        history,
        onMessage: (message) => void transcript.append(message),
        customCommands: loadCustomCommands(
          commandFolders(cwd, configDir, configurationLocations(sessionOptions).home, {
            trusted: session.settings.trusted,
          }),
          cwd,
        ),
        switchModel: (spec) => resolveProvider(spec, env, process.cwd()),
        ...statusLineOption(session, provider.model),
      });
    } finally {
      await closeSession(session, transcript);
    }
  });
}
