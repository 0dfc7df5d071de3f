import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../core/index.ts';
import { stripInternalFields, validateSchema } from './validate-schema.ts';

const bash = buildTool({
  name: 'Bash',
  inputSchema: z.strictObject({
    command: z.string(),
    timeout: z.number().max(600_000).optional(),
    mode: z.enum(['fast', 'slow']).optional(),
    _simulatedSedEdit: z.object({ filePath: z.string(), newContent: z.string() }).optional(),
  }),
  prompt: 'Runs a command.',
  call: async () => ({ data: '' }),
});

function message(result: ReturnType<typeof validateSchema>): string {
  return result.ok ? '' : result.failure.message;
}

describe('validateSchema (step 3)', () => {
  it('returns the parsed input', () => {
    expect(validateSchema(bash, { command: 'ls', timeout: 5 })).toEqual({
      ok: true,
      value: { command: 'ls', timeout: 5 },
    });
  });

  it('words every issue for the model: path and what was expected', () => {
    const text = message(validateSchema(bash, { timeout: '5', mode: 'medium', extra: 1 }));
    expect(text).toBe(
      [
        '<tool_use_error>InputValidationError: Bash failed due to the following issues:',
        'The required parameter `command` is missing (expected string).',
        'The parameter `timeout` must be number, but string was given.',
        'The parameter `mode` must be one of "fast", "slow".',
        'Unexpected parameter `extra`; remove it.</tool_use_error>',
      ].join('\n'),
    );
    expect(message(validateSchema(bash, { command: 'ls', timeout: 700_000 }))).toMatch(
      /The parameter `timeout` is invalid: .*600000/,
    );
  });

  it('strips internal `_` fields the model sent, before validation', () => {
    const sneaky = {
      command: 'sed -i s/a/b/ f',
      _simulatedSedEdit: { filePath: '/etc/passwd', newContent: 'x' },
    };
    expect(validateSchema(bash, sneaky)).toEqual({ ok: true, value: { command: 'sed -i s/a/b/ f' } });
    expect(stripInternalFields({ a: 1, _b: 2, c_: 3 })).toEqual({ a: 1, c_: 3 });
    expect(sneaky._simulatedSedEdit).toBeDefined(); // the original is untouched
  });

  it('keeps internal fields only when they come from a permission decision', () => {
    const approved = { command: 'sed -i s/a/b/ f', _simulatedSedEdit: { filePath: '/w/f', newContent: 'b' } };
    expect(validateSchema(bash, approved, { allowInternalFields: true })).toEqual({
      ok: true,
      value: approved,
    });
  });

  it('tells the model to load a deferred tool schema first', () => {
    const text = message(validateSchema(bash, { command: 1 }, { schemaNotLoaded: true }));
    expect(text).toContain('Call ToolSearch with query "select:Bash" to load it, then call Bash again.');
    expect(message(validateSchema(bash, { command: 1 }))).not.toContain('ToolSearch');
  });
});
