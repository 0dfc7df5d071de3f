import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, createToolUseContext } from '../../core/index.ts';
import { backfillInput, cloneInput } from './backfill.ts';

const read = buildTool({
  name: 'Read',
  inputSchema: z.object({
    file_path: z.string(),
    nested: z.object({ list: z.array(z.number()) }).optional(),
  }),
  prompt: 'Reads.',
  backfillObservableInput: (input, context) => {
    const path = String(input['file_path']);
    if (!path.startsWith('/')) input['file_path'] = join(context.run.cwd, path);
    const nested = input['nested'] as { list: number[] } | undefined;
    nested?.list.push(99);
  },
  call: async () => ({ data: '' }),
});

describe('backfillInput (step 6)', () => {
  it('adds derived fields to a deep copy and leaves the original byte-stable', () => {
    const context = createToolUseContext({ cwd: '/work' });
    const original = { file_path: 'src/a.ts', nested: { list: [1] } };
    const before = JSON.stringify(original);
    const observable = backfillInput(read, original, context);
    expect(observable).toEqual({ file_path: '/work/src/a.ts', nested: { list: [1, 99] } });
    expect(JSON.stringify(original)).toBe(before);
  });

  it('falls back to a plain copy when the backfill throws', () => {
    const broken = buildTool({
      name: 'Broken',
      inputSchema: z.object({ a: z.number() }),
      prompt: 'b',
      backfillObservableInput: (input) => {
        input['a'] = 2;
        throw new Error('bad backfill');
      },
      call: async () => ({ data: '' }),
    });
    expect(backfillInput(broken, { a: 1 }, createToolUseContext({ cwd: '/' }))).toEqual({ a: 1 });
  });

  it('copies JSON-shaped input deeply, keeps an own "__proto__" key a key, and clones other objects', () => {
    const parsed = JSON.parse('{"a":[{"b":1}],"__proto__":{"polluted":true},"n":null}') as Record<
      string,
      unknown
    >;
    const copy = cloneInput(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect(copy['a']).not.toBe(parsed['a']);
    const when = new Date(0);
    const withDate = cloneInput({ when, map: new Map([[1, 2]]) });
    expect(withDate['when']).toEqual(when);
    expect(withDate['when']).not.toBe(when);
    expect(withDate['map']).toEqual(new Map([[1, 2]]));
  });
});
