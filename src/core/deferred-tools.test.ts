import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from './build-tool.ts';
import {
  chooseDeferredTools,
  DeferredTools,
  isDeferrable,
  loadedSubset,
  parseToolSearchMode,
} from './deferred-tools.ts';

const tool = (
  name: string,
  extra: { shouldDefer?: boolean; alwaysLoad?: boolean; mcp?: boolean; text?: string } = {},
) =>
  buildTool({
    name,
    inputSchema: z.object({}),
    prompt: extra.text ?? `The ${name} tool.`,
    call: async () => ({ data: '' }),
    ...(extra.shouldDefer ? { shouldDefer: true } : {}),
    ...(extra.alwaysLoad ? { alwaysLoad: true } : {}),
    ...(extra.mcp ? { mcpInfo: { serverName: 's', toolName: name } } : {}),
  });

describe('ENABLE_TOOL_SEARCH', () => {
  it('reads auto, auto:N, true and false, and explains a bad value', () => {
    expect(parseToolSearchMode(undefined)).toEqual({ kind: 'auto', percent: 10 });
    expect(parseToolSearchMode('auto:25')).toEqual({ kind: 'auto', percent: 25 });
    expect(parseToolSearchMode('true')).toEqual({ kind: 'always' });
    expect(parseToolSearchMode('0')).toEqual({ kind: 'never' });
    expect(() => parseToolSearchMode('auto:200')).toThrow(/use auto, auto:N .* true or false\.$/);
    expect(() => parseToolSearchMode('maybe')).toThrow(/ENABLE_TOOL_SEARCH="maybe"/);
  });
});

describe('choosing deferred tools', () => {
  const big = 'x'.repeat(3000);
  const pool = [
    tool('Read'),
    tool('NotebookEdit', { shouldDefer: true }),
    tool('ToolSearch', { alwaysLoad: true }),
    tool('mcp__s__a', { mcp: true, text: big }),
    tool('mcp__s__b', { mcp: true, text: big }),
    tool('mcp__s__pinned', { mcp: true, alwaysLoad: true, text: big }),
  ];

  it('defers shouldDefer built-ins and MCP tools, never alwaysLoad ones', () => {
    expect(pool.filter(isDeferrable).map((entry) => entry.name)).toEqual([
      'NotebookEdit',
      'mcp__s__a',
      'mcp__s__b',
    ]);
  });

  it('in auto mode defers only once MCP definitions pass the share of the context window', async () => {
    // About 6,100 characters of MCP definitions ≈ 2,440 tokens at 2.5 characters per token.
    const small = await chooseDeferredTools(pool, {
      mode: { kind: 'auto', percent: 10 },
      contextWindowTokens: 200_000,
    });
    expect(small.size).toBe(0);
    const tight = await chooseDeferredTools(pool, {
      mode: { kind: 'auto', percent: 10 },
      contextWindowTokens: 20_000,
    });
    expect([...tight].sort()).toEqual(['NotebookEdit', 'mcp__s__a', 'mcp__s__b']);
    const lower = await chooseDeferredTools(pool, {
      mode: { kind: 'auto', percent: 1 },
      contextWindowTokens: 200_000,
    });
    expect(lower.size).toBe(3);
    expect((await chooseDeferredTools(pool, { mode: { kind: 'always' } })).size).toBe(3);
    expect((await chooseDeferredTools(pool, { mode: { kind: 'never' } })).size).toBe(0);
  });
});

describe('a session’s deferred tools', () => {
  it('loads only deferred names, and the loaded subset appends in load order', () => {
    const state = new DeferredTools();
    state.setDeferred(['c', 'a', 'b']);
    expect(state.load(['b', 'x', 'b'])).toEqual(['b']);
    expect(state.load(['a'])).toEqual(['a']);
    expect(state.isLoaded('x')).toBe(true);
    expect(state.isLoaded('c')).toBe(false);
    const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
    expect(loadedSubset(tools, state.requestDeferral()).map((entry) => entry.name)).toEqual([
      'd',
      'e',
      'b',
      'a',
    ]);
    expect(loadedSubset(tools).map((entry) => entry.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('announces deferred names once, then only what was added or removed', () => {
    const state = new DeferredTools();
    state.setDeferred(['mcp__s__b', 'mcp__s__a']);
    const first = state.takeAnnouncement();
    expect(first).toContain('<available-deferred-tools>\nmcp__s__a\nmcp__s__b\n</available-deferred-tools>');
    expect(first).toContain('select:<name>');
    expect(state.takeAnnouncement()).toBeUndefined();
    state.setDeferred(['mcp__s__a', 'mcp__t__c']);
    const second = state.takeAnnouncement() ?? '';
    expect(second).toContain('<available-deferred-tools>\nmcp__t__c\n</available-deferred-tools>');
    expect(second).toContain('<removed-deferred-tools>\nmcp__s__b\n</removed-deferred-tools>');
    expect(second).not.toContain('mcp__s__a');
  });
});
