import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, defaultMaxResultSizeChars, lazySchema } from './build-tool.ts';
import { createToolUseContext } from './context.ts';

const minimal = buildTool({
  name: 'Minimal',
  inputSchema: z.object({ value: z.string() }),
  prompt: 'A minimal tool.',
  async call(input) {
    return { data: input.value };
  },
});

describe('buildTool defaults fail closed', () => {
  const input = { value: 'x' };
  const context = createToolUseContext({ cwd: '/tmp' });

  it('is not concurrency-safe unless the tool says so', () => {
    expect(minimal.isConcurrencySafe(input)).toBe(false);
  });
  it('is not read-only unless the tool says so', () => {
    expect(minimal.isReadOnly(input)).toBe(false);
  });
  it('is not destructive by default', () => {
    expect(minimal.isDestructive(input)).toBe(false);
  });
  it('gives the classifier nothing, so the general permission system decides', () => {
    expect(minimal.toAutoClassifierInput(input)).toBe('');
  });
  it('has no tool-specific permission objection, which is not an allow', async () => {
    expect(await minimal.checkPermissions(input, context)).toEqual({ behavior: 'passthrough' });
  });
  it('declares no permission target', () => {
    expect(minimal.permissionTarget(input, context)).toEqual({ kind: 'none' });
  });
  it('is enabled, blocks interrupts, is neither deferred nor always loaded', () => {
    expect(minimal.isEnabled()).toBe(true);
    expect(minimal.interruptBehavior()).toBe('block');
    expect(minimal.shouldDefer).toBe(false);
    expect(minimal.alwaysLoad).toBe(false);
    expect(minimal.cancelsSiblingsOnError(input)).toBe(false);
  });
  it('limits results to the default size', () => {
    expect(minimal.maxResultSizeChars).toBe(defaultMaxResultSizeChars);
  });
  it('accepts any semantically valid input', async () => {
    expect(await minimal.validateInput(input, context)).toEqual({ ok: true });
  });
  it('leaves backfill a no-op and names itself', () => {
    const copy: Record<string, unknown> = { value: 'x' };
    minimal.backfillObservableInput(copy, context);
    expect(copy).toEqual({ value: 'x' });
    expect(minimal.userFacingName()).toBe('Minimal');
    expect(minimal.aliases).toEqual([]);
  });
  it('serialises string output as is and other output as JSON', () => {
    expect(minimal.mapResultToBlock('hello', 'id1')).toEqual({
      type: 'tool_result',
      toolUseId: 'id1',
      content: 'hello',
    });
    const objectTool = buildTool({
      name: 'Obj',
      inputSchema: z.object({}),
      prompt: 'p',
      async call() {
        return { data: { a: 1 } };
      },
    });
    expect(objectTool.mapResultToBlock({ a: 1 }, 'id2').content).toBe('{\n  "a": 1\n}');
  });
  it('resolves a string prompt and a function prompt alike', async () => {
    expect(await minimal.prompt({ tools: [], isNonInteractive: true })).toBe('A minimal tool.');
  });
  it('rejects names providers would refuse', () => {
    expect(() =>
      buildTool({
        name: 'bad name!',
        inputSchema: z.object({}),
        prompt: 'p',
        async call() {
          return { data: null };
        },
      }),
    ).toThrow(/must match/);
  });
  it('lets a definition override every default', () => {
    const tool = buildTool({
      name: 'Reader',
      inputSchema: z.object({ path: z.string() }),
      prompt: 'p',
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      async call() {
        return { data: '' };
      },
    });
    expect(tool.isConcurrencySafe({ path: 'a' })).toBe(true);
    expect(tool.isReadOnly({ path: 'a' })).toBe(true);
  });
});

describe('an input schema given as a getter', () => {
  it('is built at its first use, once, and is then the tool schema', () => {
    let built = 0;
    const schema = lazySchema(() => {
      built += 1;
      return z.strictObject({ value: z.string() });
    });
    const tool = buildTool({
      name: 'Lazy',
      get inputSchema() {
        return schema();
      },
      prompt: 'A tool whose schema is built on use.',
      async call(input) {
        return { data: input.value };
      },
    });
    expect(built).toBe(0);
    expect(Object.keys(tool)).toContain('inputSchema');
    expect(tool.inputSchema.safeParse({ value: 'x' }).success).toBe(true);
    expect(tool.inputSchema.safeParse({ value: 1 }).success).toBe(false);
    expect(tool.inputSchema).toBe(schema());
    expect({ ...tool }.inputSchema).toBe(schema());
    expect(built).toBe(1);
  });
});
