import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, createToolUseContext } from '../../core/index.ts';
import { createHookRunner, type HookInput } from '../../hooks/index.ts';
import { echoTool } from '../../../test/pipeline/fixtures.ts';
import { runPostToolHooks } from './post-tool-hooks.ts';

const context = createToolUseContext({ cwd: '/tmp' });
const mcpTool = buildTool({
  name: 'mcp__notes__search',
  inputSchema: z.object({}),
  prompt: 'Searches notes.',
  mcpInfo: { serverName: 'notes', toolName: 'search' },
  call: async () => ({ data: { hits: 3 } }),
});

describe('runPostToolHooks (step 12)', () => {
  it('gives hooks the output and duration, and collects replacement, feedback, context and stop', async () => {
    let seen: HookInput | undefined;
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUse',
          callback: (input) => {
            seen = input;
            return {
              decision: 'block',
              reason: 'contains a secret',
              continue: false,
              stopReason: 'review needed',
              hookSpecificOutput: { updatedToolOutput: 'redacted', additionalContext: 'audited' },
            };
          },
        },
      ],
    });
    const value = await runPostToolHooks({
      hooks,
      tool: echoTool(),
      input: { text: 'k' },
      output: 'sk-123',
      toolUseId: 't',
      context,
      durationMs: 12,
    });
    expect(seen).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_response: 'sk-123',
      duration_ms: 12,
      tool_input: { text: 'k' },
    });
    expect(value).toEqual({
      replacement: { value: 'redacted' },
      feedback: ['contains a secret'],
      additionalContext: ['audited'],
      stopReason: 'review needed',
    });
  });

  it('prefers updatedMCPToolOutput for MCP tools only', async () => {
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUse',
          callback: () => ({ hookSpecificOutput: { updatedMCPToolOutput: { hits: 0 } } }),
        },
      ],
    });
    const mcp = await runPostToolHooks({
      hooks,
      tool: mcpTool,
      input: {},
      output: { hits: 3 },
      toolUseId: 't',
      context,
      durationMs: 1,
    });
    expect(mcp.replacement).toEqual({ value: { hits: 0 } });
    const builtIn = await runPostToolHooks({
      hooks,
      tool: echoTool(),
      input: {},
      output: 'x',
      toolUseId: 't',
      context,
      durationMs: 1,
    });
    expect(builtIn.replacement).toBeUndefined();
  });

  it('shows exit-2 stderr of a PostToolUse command to the model', async () => {
    const hooks = createHookRunner({
      hooks: {
        PostToolUse: [
          {
            hooks: [{ type: 'command', command: 'cat >/dev/null; echo "lint failed: 3 errors" >&2; exit 2' }],
          },
        ],
      },
    });
    const value = await runPostToolHooks({
      hooks,
      tool: echoTool(),
      input: {},
      output: 'x',
      toolUseId: 't',
      context,
      durationMs: 1,
    });
    expect(value.feedback).toEqual(['lint failed: 3 errors']);
  });
});
