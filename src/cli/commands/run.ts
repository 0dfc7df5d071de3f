import { type Command, Option } from 'commander';
import { EfferentError } from '../../core/index.ts';
import { homedir } from 'node:os';
import { trustWorkspace } from '../../agent/index.ts';
import { createTerminalElicit, openSession } from '../terminal/mcp-session.ts';
import {
  addSessionFlags,
  isTrustNotice,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';
import { type OutputFormat, runHeadless } from '../terminal/headless.ts';
import { runInteractive } from '../terminal/interactive.ts';
import { LineInput } from '../terminal/line-input.ts';
import { TerminalPermissionPrompts } from '../terminal/permission-prompt.ts';
import { resolveProvider } from '../terminal/resolve-provider.ts';
import { defaultSystemPrompt } from '../terminal/system-prompt.ts';

interface RunFlags extends SessionFlags {
  print?: string;
  outputFormat: OutputFormat;
  model?: string;
  maxTurns: string;
  systemPrompt?: string;
}

function parseMaxTurns(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new EfferentError('usage', `--max-turns must be a positive integer, not "${text}".`);
  return value;
}

/** `efferent run`: an agent on efferent's tools, headless with -p or as an interactive terminal session. */
export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description('Run an agent on efferent: headless with -p PROMPT, otherwise an interactive session.')
    .option('-p, --print <prompt>', 'run one prompt without a person and print the result')
    .addOption(
      new Option('--output-format <format>', 'headless output')
        .choices(['text', 'json', 'stream-json'])
        .default('text'),
    )
    .option(
      '--model <provider:name>',
      'anthropic:NAME, openai:NAME or replay:FILE (default: from the API keys set)',
    )
    .option('--max-turns <n>', 'model turns before the run stops', '50')
    .option('--system-prompt <text>', 'replace the default system prompt');
  addSessionFlags(command).action(async (flags: RunFlags) => {
    const base = await resolveTrust(flags, sessionOptionsFromFlags(flags));
    const cwd = base.cwd;
    const maxTurns = parseMaxTurns(flags.maxTurns);
    const provider = await resolveProvider(flags.model, process.env, process.cwd());
    const systemPrompt = flags.systemPrompt ?? defaultSystemPrompt({ cwd });
    const sessionOptions = { ...base, model: provider.model };
    if (flags.print !== undefined) {
      const session = await openSession(sessionOptions, flags);
      reportSettingsNotices(session.settings.notices, flags);
      // SIGINT and SIGTERM stop every running tool (their process groups are killed), the result
      // line is still written, and the exit code is 130. A third signal exits at once.
      const controller = new AbortController();
      let signals = 0;
      const onInterrupt = () => {
        signals += 1;
        if (signals >= 3) process.exit(130);
        controller.abort(new Error('Interrupted by a signal.'));
      };
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      try {
        const code = await runHeadless({
          provider,
          session,
          systemPrompt,
          prompt: flags.print,
          format: flags.outputFormat,
          maxTurns,
          output: process.stdout,
          errors: process.stderr,
          signal: controller.signal,
        });
        process.exitCode = controller.signal.aborted ? 130 : code;
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
        input,
        output: process.stdout,
        prompts,
      });
    } finally {
      await session.dispose();
    }
  });
}
