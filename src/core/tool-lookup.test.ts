import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from './build-tool.ts';
import { findToolByName } from './tool-lookup.ts';

const tool = (name: string, aliases: string[] = []) =>
  buildTool({ name, aliases, inputSchema: z.object({}), prompt: name, call: async () => ({ data: name }) });

describe('findToolByName', () => {
  const read = tool('Read', ['View']);
  const view = tool('View');
  const task = tool('Agent', ['Task']);

  it('finds a tool by its name, then by a former name', () => {
    expect(findToolByName([read, task], 'Agent')).toBe(task);
    expect(findToolByName([read, task], 'Task')).toBe(task);
    expect(findToolByName([read, task], 'Nope')).toBeUndefined();
  });

  it('never lets an alias shadow another tool that has the name, whatever the order', () => {
    expect(findToolByName([read, view], 'View')).toBe(view);
    expect(findToolByName([view, read], 'View')).toBe(view);
    expect(findToolByName([read], 'View')).toBe(read);
  });

  it('is case-sensitive, as tool names are', () => {
    expect(findToolByName([read], 'read')).toBeUndefined();
  });
});
