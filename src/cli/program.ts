import { Command, CommanderError } from 'commander';

/** Builds the `efferent` command line. Each subcommand lives in its own file under commands/. */
export function createProgram(): Command {
  const program = new Command('efferent')
    .description('A tool runtime for AI agents: checked, budgeted, concurrent tool calls.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');
  // subcommands register here, one line each
  return program;
}

/** Entry point: parses argv and turns usage errors into one clear line and a non-zero exit. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const program = createProgram();
  program.exitOverride();
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    throw error;
  }
}
