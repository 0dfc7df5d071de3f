import { homedir } from 'node:os';
import { type Command, Option } from 'commander';
import { trustWorkspace } from '../../agent/index.ts';
import { EfferentError } from '../../core/index.ts';
import { type OutputFormat, runHeadless } from '../terminal/headless.ts';
import { readPromptFromStdin, streamJsonInputs } from '../terminal/headless-input.ts';
import { runInteractive } from '../terminal/interactive.ts';
import { LineInput } from '../terminal/line-input.ts';
import { createTerminalElicit, openSession } from '../terminal/mcp-session.ts';
import { TerminalPermissionPrompts } from '../terminal/permission-prompt.ts';
import { resolveProvider } from '../terminal/resolve-provider.ts';
import {
  addSessionFlags,
  isTrustNotice,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';
import { defaultSystemPrompt } from '../terminal/system-prompt.ts';

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
function maxRetriesFrom(flags: RunFlags, env: NodeJS.ProcessEnv): number | undefined {
  if (flags.maxRetries !== undefined) return positiveInteger('--max-retries', flags.maxRetries, 0);
  const fromEnv = env['EFFERENT_MAX_RETRIES'];
  if (fromEnv !== undefined && fromEnv !== '') return positiveInteger('EFFERENT_MAX_RETRIES', fromEnv, 0);
  return undefined;
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
    .option('--system-prompt <text>', 'replace the default system prompt');
  addSessionFlags(command).action(async (flags: RunFlags) => {
    const base = await resolveTrust(flags, sessionOptionsFromFlags(flags));
    const cwd = base.cwd;
    const maxTurns = positiveInteger('--max-turns', flags.maxTurns);
    const maxTokens =
      flags.maxTokens === undefined ? undefined : positiveInteger('--max-tokens', flags.maxTokens);
    const maxRetries = maxRetriesFrom(flags, process.env);
    const limits = {
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    };
    const provider = await resolveProvider(flags.model, process.env, process.cwd());
    const systemPrompt = flags.systemPrompt ?? defaultSystemPrompt({ cwd });
    const sessionOptions = { ...base, model: provider.model };
    if (flags.print !== undefined || flags.inputFormat === 'stream-json') {
      const streamed = flags.inputFormat === 'stream-json';
      const prompt = streamed
        ? undefined
        : typeof flags.print === 'string'
          ? flags.print
          : await readPromptFromStdin(process.stdin);
      const session = await openSession(sessionOptions, flags);
      reportSettingsNotices(session.settings.notices, flags);
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
        });
        process.exitCode = pipeClosed ? 0 : controller.signal.aborted ? 130 : code;
      } finally {
        await session.dispose();
        process.off('SIGINT', onInterrupt);
        process.off('SIGTERM', onInterrupt);
      }
      return;
    }
    const input = new LineInput(process.stdin, process.stdout);
    const prompts = new TerminalPermissionPrompts(input, process.stdout);
    const askUser = prompts.askUser;
    const interaction = { elicit: createTerminalElicit(input, process.stdout) };
    let session = await openSession({ ...sessionOptions, askUser }, flags, process.stderr, interaction);
    if (!flags.untrusted && session.settings.notices.some(isTrustNotice)) {
      // The folder has its own settings that can allow commands and run hooks: ask once, remember the answer.
      const answer = await input.question(
        'This folder has efferent settings that can allow commands and run hooks. Trust it? [y/N] ',
        process.stdout,
      );
      if (answer !== null && /^y(es)?$/i.test(answer.trim())) {
        await session.dispose();
        await trustWorkspace(homedir(), cwd);
        session = await openSession(
          { ...sessionOptions, askUser, trusted: true },
          flags,
          process.stderr,
          interaction,
        );
      }
    }
    reportSettingsNotices(session.settings.notices, flags);
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
      });
    } finally {
      await session.dispose();
    }
  });
}
