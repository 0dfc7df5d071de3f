import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, type SessionOptions } from '../../src/agent/index.ts';
import { type AnyTool, buildTool } from '../../src/core/index.ts';

function mcpTool(tool: string, alwaysLoad = false): AnyTool {
  return buildTool({
    name: `mcp__srv__${tool}`,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJSONSchema: { type: 'object', properties: { value: { type: 'string' } } },
    prompt: `Does ${tool} on the server. `.repeat(20),
    mcpInfo: { serverName: 'srv', toolName: tool },
    ...(alwaysLoad ? { alwaysLoad: true } : {}),
    call: async () => ({ data: 'ok' }),
  });
}

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-tool-search-session-')));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function open(options: Partial<SessionOptions>) {
  const session = await createSession({
    cwd: root,
    home: join(root, 'home'),
    trusted: false,
    env: { PATH: process.env['PATH'] },
    extraTools: [mcpTool('alpha'), mcpTool('beta'), mcpTool('pinned', true)],
    ...options,
  });
  await session.dispose();
  return {
    names: session.tools.map((tool) => tool.name),
    deferred: [...session.deferredTools.deferred].sort(),
  };
}

describe('deferral in sessions', () => {
  it('auto: loads everything while MCP tools are a small share of the context window', async () => {
    const { names, deferred } = await open({});
    expect(deferred).toEqual([]);
    expect(names).not.toContain('ToolSearch');
  });

  it('auto: defers MCP and deferrable built-ins once they pass the share, adding ToolSearch', async () => {
    const { names, deferred } = await open({ contextWindowTokens: 2_000 });
    expect(names).toContain('ToolSearch');
    expect(deferred).toContain('mcp__srv__alpha');
    expect(deferred).toContain('NotebookEdit');
    expect(deferred).not.toContain('mcp__srv__pinned');
    expect(deferred).not.toContain('ToolSearch');
    expect(deferred).not.toContain('Read');
    // The built-ins, ToolSearch among them, still come first.
    expect(names.indexOf('ToolSearch')).toBeLessThan(names.indexOf('mcp__srv__alpha'));
  });

  it('reads ENABLE_TOOL_SEARCH, which the option overrides', async () => {
    const always = await open({ env: { ENABLE_TOOL_SEARCH: 'true' } });
    expect(always.deferred).toContain('mcp__srv__beta');
    const never = await open({ env: { ENABLE_TOOL_SEARCH: 'true' }, toolSearch: 'false' });
    expect(never.deferred).toEqual([]);
    expect(never.names).not.toContain('ToolSearch');
    const percent = await open({ env: { ENABLE_TOOL_SEARCH: 'auto:0' } });
    expect(percent.deferred).toContain('mcp__srv__alpha');
    await expect(open({ env: { ENABLE_TOOL_SEARCH: 'sometimes' } })).rejects.toThrow(
      'use auto, auto:N (N from 0 to 100, a percentage of the context window), true or false.',
    );
  });

  it('lets a direct callTool run a deferred tool (the caller names it knowingly), loading it', async () => {
    const session = await createSession({
      cwd: root,
      home: join(root, 'home'),
      trusted: false,
      env: { PATH: process.env['PATH'] },
      extraTools: [mcpTool('alpha')],
      toolSearch: true,
      cli: { allowedTools: ['mcp__srv'] },
    });
    try {
      expect(session.deferredTools.isLoaded('mcp__srv__alpha')).toBe(false);
      const result = await session.callTool('mcp__srv__alpha', { value: 'x' });
      expect(result.isError).toBeUndefined();
      expect(session.deferredTools.isLoaded('mcp__srv__alpha')).toBe(true);
    } finally {
      await session.dispose();
    }
  });
});
