import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from './build-tool.ts';
import { isInternalField, toolInputJsonSchema } from './json-schema.ts';

describe('toolInputJsonSchema', () => {
  it('emits the zod input schema without internal fields', () => {
    const tool = buildTool({
      name: 'Shell',
      inputSchema: z.strictObject({
        command: z.string().describe('The command'),
        timeout: z.number().optional(),
        _simulatedSedEdit: z.object({ filePath: z.string(), newContent: z.string() }).optional(),
      }),
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    const schema = toolInputJsonSchema(tool);
    expect(schema).toEqual({
      type: 'object',
      properties: { command: { type: 'string', description: 'The command' }, timeout: { type: 'number' } },
      required: ['command'],
      additionalProperties: false,
    });
    expect(JSON.stringify(schema)).not.toContain('_simulated');
  });
  it('prefers a JSON schema given directly', () => {
    const direct = { type: 'object', properties: { q: { type: 'string' } } };
    const tool = buildTool({
      name: 'Mcp',
      inputSchema: z.record(z.string(), z.unknown()),
      inputJSONSchema: direct,
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    expect(toolInputJsonSchema(tool)).toBe(direct);
  });
  it('recognises internal fields by their prefix', () => {
    expect(isInternalField('_x')).toBe(true);
    expect(isInternalField('x_')).toBe(false);
  });
});
