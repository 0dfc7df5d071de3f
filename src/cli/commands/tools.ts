import { type Command, Option } from 'commander';
import type { AnyTool } from '../../core/index.ts';
import {
  assembleToolPool,
  getAllBaseTools,
  type SchemaProvider,
  toProviderTools,
} from '../../registry/index.ts';

/** The tool pool as the CLI builds it: every enabled built-in, in pool order. */
export function cliToolPool(): AnyTool[] {
  return assembleToolPool({ builtIns: getAllBaseTools() });
}

/** Human-readable rendering of the exact definitions a provider receives. */
function renderDefinitions(definitions: readonly unknown[]): string {
  return definitions
    .map((definition) => {
      const record = definition as Record<string, unknown>;
      const inner = (record['function'] as Record<string, unknown> | undefined) ?? record;
      const { name, description, ...schema } = inner;
      return `## ${String(name)}\n\n${String(description)}\n\n${JSON.stringify(schema, null, 2)}\n`;
    })
    .join('\n');
}

/** `efferent tools`: prints the pool exactly as the model would see it. */
export function registerToolsCommand(program: Command): void {
  program
    .command('tools')
    .description('Print the tool pool exactly as the model would see it.')
    .addOption(
      new Option('--provider <provider>', 'schema dialect')
        .choices(['anthropic', 'openai', 'gemini'])
        .default('anthropic'),
    )
    .option('--json', 'print the provider definitions as JSON')
    .action(async (options: { provider: SchemaProvider; json?: boolean }) => {
      const definitions = await toProviderTools(cliToolPool(), options.provider);
      process.stdout.write(
        options.json ? `${JSON.stringify(definitions, null, 2)}\n` : renderDefinitions(definitions),
      );
    });
}
