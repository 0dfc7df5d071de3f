import { chmod, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentDone, createSession, runAgent, type Session } from '../../src/agent/index.ts';
import { z } from 'zod';
import { buildTool, toolResultText, type ToolResultBlock } from '../../src/core/index.ts';
import { createScriptedProvider } from '../../src/providers/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

let workspace: TempWorkspace;
let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await workspace?.dispose();
});

async function open(settings: unknown, extra: Parameters<typeof createSession>[0] | object = {}) {
  workspace = await createTempWorkspace({
    files: { '.efferent/settings.json': JSON.stringify(settings), 'notes.txt': 'hello\n' },
  });
  session = await createSession({ cwd: workspace.dir, home: workspace.dir, ...extra });
  return session;
}

describe('createSession', () => {
  it('removes tools named by a blanket deny rule from the pool', async () => {
    const current = await open({ permissions: { deny: ['Bash', 'Write'] } });
    const names = current.tools.map((tool) => tool.name);
    expect(names).not.toContain('Bash');
    expect(names).not.toContain('Write');
    expect(names).toContain('Read');
    const result = await current.callTool('Bash', { command: 'echo hi' });
    expect(result.isError).toBe(true);
  });

  it('lets a PermissionRequest hook script answer instead of a person', async () => {
    workspace = await createTempWorkspace();
    const script = await workspace.write(
      'approve.sh',
      '#!/bin/sh\ncat > /dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\'\n',
    );
    await chmod(script, 0o755);
    await workspace.write(
      '.efferent/settings.json',
      JSON.stringify({
        hooks: { PermissionRequest: [{ matcher: 'Write', hooks: [{ type: 'command', command: script }] }] },
      }),
    );
    session = await createSession({ cwd: workspace.dir, home: workspace.dir });
    const written = await session.callTool('Write', {
      file_path: workspace.path('out.txt'),
      content: 'approved\n',
    });
    expect(written.isError ?? false).toBe(false);
    expect(await readFile(workspace.path('out.txt'), 'utf8')).toBe('approved\n');
    const bash = await session.callTool('Bash', { command: 'touch other.txt' });
    expect(bash.isError).toBe(true);
  });

  it('moves an oversized result to disk and keeps a preview inline', async () => {
    const current = await open({ permissions: { allow: ['Bash(seq *)'] } });
    const result = await current.callTool('Bash', { command: 'seq 1 20000' });
    const text = toolResultText(result);
    expect(text).toContain('<persisted-output>');
    const path = /saved to: (\S+)/.exec(text)?.[1];
    expect(path).toBeDefined();
    const saved = await readFile(path ?? '', 'utf8');
    expect(saved).toContain('19999\n20000');
  });

  it('keeps a turn under the per-turn budget by offloading its largest results', async () => {
    const sizes = [45_000, 48_000, 44_000, 47_000, 46_000];
    const bulky = buildTool({
      name: 'Bulky',
      inputSchema: z.strictObject({ size: z.number() }),
      prompt: 'Returns that many characters.',
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async call(input) {
        return { data: `${input.size}:`.padEnd(input.size, 'x') };
      },
    });
    await (await open({ permissions: { allow: ['Bulky'] } })).dispose();
    const current = await createSession({ cwd: workspace.dir, home: workspace.dir, extraTools: [bulky] });
    session = current;
    const calls = sizes.map((size, index) => ({
      type: 'tool_use' as const,
      id: `t${index}`,
      name: 'Bulky',
      input: { size },
    }));
    const provider = createScriptedProvider(
      [{ events: calls, stopReason: 'tool_use' }, { events: [{ type: 'text_delta', text: 'done' }] }],
      { timeScale: 0 },
    );
    let done: AgentDone | undefined;
    for await (const event of runAgent({
      provider,
      tools: current.tools,
      runTool: current.runTool,
      resultBudget: current.resultBudget,
      context: current.context,
      systemPrompt: 'test',
      prompt: 'go',
    })) {
      if (event.type === 'done') done = event;
    }
    const results = (done?.messages[2]?.content ?? []).filter(
      (block): block is ToolResultBlock => block.type === 'tool_result',
    );
    expect(results.map((block) => block.toolUseId)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    const inline = results.map((block) => toolResultText(block).length);
    expect(inline.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(200_000);
    // The largest result (48,000) goes first; each one alone is under the 50,000 per-tool threshold.
    expect(toolResultText(results[1] as ToolResultBlock)).toContain('<persisted-output>');
    expect(toolResultText(results[2] as ToolResultBlock)).not.toContain('<persisted-output>');
  });
});

describe('createSession environment', () => {
  it('keeps the agent model credentials away from tools, unless a settings file passes one on purpose', async () => {
    await using workspace = await createTempWorkspace({
      files: { '.efferent/settings.json': JSON.stringify({ env: { OPENAI_API_KEY: 'chosen-by-settings' } }) },
    });
    await using current = await createSession({
      cwd: workspace.dir,
      home: workspace.dir,
      env: {
        PATH: process.env['PATH'],
        ANTHROPIC_API_KEY: 'sk-secret',
        OPENAI_API_KEY: 'sk-other',
        KEEP_ME: 'yes',
      },
      permissionMode: 'bypassPermissions',
    });
    const result = await current.callTool('Bash', { command: 'env' });
    const text = toolResultText(result);
    expect(text).toContain('KEEP_ME=yes');
    expect(text).not.toContain('sk-secret');
    expect(text).not.toContain('sk-other');
    expect(text).toContain('OPENAI_API_KEY=chosen-by-settings');
  });
});
