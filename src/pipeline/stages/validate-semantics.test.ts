import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, createToolUseContext } from '../../core/index.ts';
import { validateSemantics } from './validate-semantics.ts';

const edit = buildTool({
  name: 'Edit',
  inputSchema: z.object({ old_string: z.string(), new_string: z.string() }),
  prompt: 'Edits.',
  validateInput: async (input) => {
    if (input.old_string === 'boom') throw new Error('checker crashed');
    return input.old_string === input.new_string
      ? { ok: false, message: 'old_string and new_string are the same; nothing would change.', code: 1 }
      : { ok: true };
  },
  call: async () => ({ data: '' }),
});
const context = createToolUseContext({ cwd: '/tmp' });

describe('validateSemantics (step 4)', () => {
  it('passes valid input and wraps the tool message', async () => {
    expect(await validateSemantics(edit, { old_string: 'a', new_string: 'b' }, context)).toEqual({
      ok: true,
      value: undefined,
    });
    const failed = await validateSemantics(edit, { old_string: 'a', new_string: 'a' }, context);
    expect(!failed.ok && failed.failure.message).toBe(
      '<tool_use_error>old_string and new_string are the same; nothing would change.</tool_use_error>',
    );
    expect(!failed.ok && failed.failure.outcome).toBe('validation_failed');
  });

  it('turns a crashing check into a failure instead of a throw', async () => {
    const failed = await validateSemantics(edit, { old_string: 'boom', new_string: 'b' }, context);
    expect(!failed.ok && failed.failure.message).toMatch(/could not check its input: checker crashed/);
  });
});
