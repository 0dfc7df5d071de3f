import { Command, CommanderError } from 'commander';
import { EfferentError, errorMessage } from '../core/index.ts';
import { registerCallCommand } from './commands/call.ts';
import { registerCheckCommand } from './commands/check.ts';
import { registerDemoCommand } from './commands/demo.ts';
import { registerDoctorCommand } from './commands/doctor.ts';
import { registerGuardCommand } from './commands/guard.ts';
import { registerMcpCommand } from './commands/mcp.ts';
import { registerRunCommand } from './commands/run.ts';
import { registerToolsCommand } from './commands/tools.ts';

/** Builds the `efferent` command line. Each subcommand lives in its own file under commands/. */
export function createProgram(): Command {
  const program = new Command('efferent')
    .description('A tool runtime for AI agents: checked, budgeted, concurrent tool calls.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    // Set before subcommands are added so they inherit it: usage errors throw instead of exiting.
    .exitOverride();
  // subcommands register here, one line each
  registerToolsCommand(program);
  registerCallCommand(program);
  registerCheckCommand(program);
  registerRunCommand(program);
  registerDemoCommand(program);
  registerMcpCommand(program);
  registerDoctorCommand(program);
  registerGuardCommand(program);
  return program;
}

/** Entry point: parses argv and turns usage errors into one clear line and a non-zero exit. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const program = createProgram();
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    // One clear line, never a stack trace, unless debugging.
    const prefix = EfferentError.isInstance(error) ? 'efferent' : 'efferent: internal error';
    process.stderr.write(`${prefix}: ${errorMessage(error)}\n`);
    if (process.env['EFFERENT_DEBUG'] && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
    process.exitCode = EfferentError.isInstance(error) && error.code === 'usage' ? 2 : 1;
  }
}
