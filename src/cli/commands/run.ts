import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { EfferentError, type PermissionMode, permissionModes } from '../../core/index.ts';
import { createSession } from '../../agent/index.ts';
import { type OutputFormat, runHeadless } from '../terminal/headless.ts';
import { runInteractive } from '../terminal/interactive.ts';
import { LineInput } from '../terminal/line-input.ts';
import { createTerminalAskUser } from '../terminal/permission-prompt.ts';
import { resolveProvider } from '../terminal/resolve-provider.ts';
import { defaultSystemPrompt } from '../terminal/system-prompt.ts';

interface RunFlags {
  print?: string;
  outputFormat: OutputFormat;
  model?: string;
  cwd?: string;
  permissionMode?: PermissionMode;
  maxTurns: string;
  settings?: string;
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
  program
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
    .option('--cwd <dir>', 'working directory (default: the current directory)')
    .addOption(new Option('--permission-mode <mode>', 'permission mode').choices([...permissionModes]))
    .option('--max-turns <n>', 'model turns before the run stops', '50')
    .option('--settings <file-or-json>', 'extra settings file or JSON')
    .option('--system-prompt <text>', 'replace the default system prompt')
    .action(async (flags: RunFlags) => {
      const cwd = resolve(flags.cwd ?? process.cwd());
      const maxTurns = parseMaxTurns(flags.maxTurns);
      const provider = await resolveProvider(flags.model, process.env, process.cwd());
      const systemPrompt = flags.systemPrompt ?? defaultSystemPrompt({ cwd });
      const sessionOptions = {
        cwd,
        model: provider.model,
        ...(flags.permissionMode ? { permissionMode: flags.permissionMode } : {}),
        ...(flags.settings ? { cli: { settings: flags.settings } } : {}),
      };
      if (flags.print !== undefined) {
        const session = await createSession(sessionOptions);
        const controller = new AbortController();
        const onInterrupt = () => controller.abort();
        process.once('SIGINT', onInterrupt);
        try {
          process.exitCode = await runHeadless({
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
        } finally {
          process.off('SIGINT', onInterrupt);
          await session.dispose();
        }
        return;
      }
      const input = new LineInput(process.stdin, process.stdout);
      const askUser = createTerminalAskUser(input, process.stdout);
      const session = await createSession({ ...sessionOptions, askUser });
      try {
        process.exitCode = await runInteractive({
          provider,
          session,
          systemPrompt,
          maxTurns,
          input,
          output: process.stdout,
        });
      } finally {
        await session.dispose();
      }
    });
}
