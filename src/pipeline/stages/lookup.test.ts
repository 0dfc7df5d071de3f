import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../core/index.ts';
import { closeToolNames, lookupTool } from './lookup.ts';

const make = (name: string, aliases: string[] = []) =>
  buildTool({ name, aliases, inputSchema: z.object({}), prompt: name, call: async () => ({ data: '' }) });

const agent = make('Agent', ['Task']);
const read = make('Read');
const grep = make('Grep');

describe('lookupTool (step 1)', () => {
  it('finds by name, then by alias in the pool', () => {
    expect(lookupTool('Read', [read, agent])).toEqual({ ok: true, value: read });
    expect(lookupTool('Task', [read, agent])).toEqual({ ok: true, value: agent });
  });

  it('resolves an alias known only to allTools to the pool tool of the current name', () => {
    const renamedInPool = make('Agent'); // the pool's copy lost the alias
    expect(lookupTool('Task', [renamedInPool], [agent])).toEqual({ ok: true, value: renamedInPool });
  });

  it('does not resurrect a tool missing from the pool through an alias', () => {
    const found = lookupTool('Task', [read], [agent]);
    expect(found.ok).toBe(false);
  });

  it('says which tools were meant', () => {
    const found = lookupTool('grep', [read, grep, agent]);
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.failure.message).toBe('No such tool available: grep. Did you mean: Grep?');
      expect(found.failure.outcome).toBe('not_found');
    }
    const none = lookupTool('Teleport', [read]);
    expect(!none.ok && none.failure.message).toBe(
      'No such tool available: Teleport. Use only the tools listed in your tool definitions.',
    );
  });

  it('ranks close names', () => {
    expect(closeToolNames('Rea', [read, grep, agent])).toEqual(['Read']);
    expect(closeToolNames('Agnet', [read, grep, agent])).toEqual(['Agent']);
  });
});
