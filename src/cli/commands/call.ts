import { modelessPromptHookNotices } from '../../agent/index.ts';
import type { Command } from 'commander';
import { EfferentError, type PermissionMode, type ToolResultBlock } from '../../core/index.ts';
import { findTool } from '../../registry/index.ts';
import { openSession } from '../terminal/mcp-session.ts';
import {
  addSessionFlags,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';

interface CallFlags extends SessionFlags {
  mode?: PermissionMode;
  json?: boolean;
}

/** Parses the input argument; the message tells the user exactly what was wrong. */
export function parseToolInput(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new EfferentError(
      'usage',
      `The input is not valid JSON (${detail}). Quote it: efferent call Read '{"file_path":"README.md"}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EfferentError('usage', 'The input must be a JSON object, e.g. \'{"file_path":"README.md"}\'.');
  }
  return value as Record<string, unknown>;
}

/** The tool_result as a person reads it: text as is, images as a one-line note. */
export function renderToolResult(result: ToolResultBlock): string {
  if (typeof result.content === 'string') return result.content;
  return result.content
    .map((part) =>
      part.type === 'text'
        ? part.text
        : `[image ${part.source.mediaType}, ${Math.round((part.source.data.length * 3) / 4)} bytes]`,
    )
    .join('\n');
}

/** `efferent call TOOL JSON`: one call through the whole pipeline; exit 1 when the result is an error. */
export function registerCallCommand(program: Command): void {
  const command = program
    .command('call')
    .description('Run one tool call through the whole pipeline and print the tool_result.')
    .argument('<tool>', 'tool name as the model sees it (e.g. Read, Bash, Grep)')
    .argument('<input>', 'the tool input as a JSON object, e.g. \'{"file_path":"README.md"}\'')
    .option('--json', 'print the tool_result block as JSON');
  addSessionFlags(command, '--mode').action(async (toolName: string, inputText: string, flags: CallFlags) => {
    const input = parseToolInput(inputText);
    const options = await resolveTrust(flags, {
      ...sessionOptionsFromFlags(flags, flags.mode),
      model: 'none',
      // One call: the Bash tool loads the grammar when it validates its input, other tools never need it.
      loadShellParserAtStart: false,
    });
    const session = await openSession(options, flags);
    // No model here: prompt hooks cannot decide, and the notice says so once.
    reportSettingsNotices(
      [...session.settings.notices, ...modelessPromptHookNotices(session.settings)],
      flags,
    );
    try {
      if (!findTool(session.tools, toolName)) {
        const names = session.tools.map((tool) => tool.name).join(', ');
        throw new EfferentError('usage', `Unknown tool "${toolName}". Available: ${names}.`);
      }
      const result = await session.callTool(toolName, input, {
        id: 'toolu_cli_1',
        onProgress: (data) => {
          if (!flags.json) process.stderr.write(`… ${JSON.stringify(data)}\n`);
        },
      });
      process.stdout.write(
        flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${renderToolResult(result)}\n`,
      );
      process.exitCode = result.isError ? 1 : 0;
    } finally {
      await session.dispose();
    }
  });
}
