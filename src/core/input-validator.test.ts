import { describe, expect, it } from 'vitest';
import { createInputValidator, formatInputIssues } from './input-validator.ts';

const lines = (schema: Record<string, unknown>, input: unknown) =>
  formatInputIssues(createInputValidator(schema)(input));

describe('createInputValidator', () => {
  it('names the parameter for missing, unexpected, mistyped and out-of-enum values', () => {
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        mode: { enum: ['read', 'write'] },
        items: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
        },
      },
      required: ['path'],
      additionalProperties: false,
    };
    expect(lines(schema, { path: 'a' })).toEqual([]);
    expect(lines(schema, {})).toEqual(['The required parameter `path` is missing.']);
    expect(lines(schema, { path: 'a', extra: 1 })).toEqual(['Unexpected parameter `extra`; remove it.']);
    expect(lines(schema, { path: 3 })).toEqual(['The parameter `path` must be string.']);
    expect(lines(schema, { path: 'a', mode: 'x' })).toEqual([
      'The parameter `mode` must be one of "read", "write".',
    ]);
    expect(lines(schema, { path: 'a', items: [{ id: 1 }, {}] })).toEqual([
      'The required parameter `items.1.id` is missing.',
    ]);
  });

  it('reads older drafts as they were meant (draft-7 tuples and definitions, draft-4 bounds)', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        range: {
          type: 'array',
          items: [{ $ref: '#/definitions/n' }, { $ref: '#/definitions/n' }],
          additionalItems: false,
        },
      },
      definitions: { n: { type: 'number' } },
    };
    expect(lines(draft7, { range: [1, 2] })).toEqual([]);
    expect(lines(draft7, { range: [1, 'x'] })).toEqual(['The parameter `range.1` must be number.']);
    expect(lines(draft7, { range: [1, 2, 3] })).toHaveLength(1);
    const draft4 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { ratio: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    };
    expect(lines(draft4, { ratio: 0.5 })).toEqual([]);
    expect(lines(draft4, { ratio: 0 })).toHaveLength(1);
  });

  it('reports a discriminated union once, with the allowed discriminator values', () => {
    const schema = {
      type: 'object',
      properties: {
        shape: {
          oneOf: [
            {
              type: 'object',
              properties: { kind: { const: 'circle' }, r: { type: 'number' } },
              required: ['kind', 'r'],
            },
            {
              type: 'object',
              properties: { kind: { const: 'square' }, side: { type: 'number' } },
              required: ['kind', 'side'],
            },
          ],
        },
      },
    };
    const [line, ...rest] = lines(schema, { shape: { kind: 'hexagon' } });
    expect(rest).toEqual([]);
    expect(line).toContain('The parameter `shape` does not match any of the allowed forms');
    expect(line).toContain('"circle", "square"');
  });

  it('checks formats and accepts anything when the schema itself cannot be compiled', () => {
    expect(
      lines({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } }, { at: 'noon' }),
    ).toEqual(['The parameter `at` must match format "date-time".']);
    const broken = createInputValidator({
      type: 'object',
      properties: { a: { $ref: 'https://example.com/x.json' } },
    });
    expect(broken({ a: 1 })).toEqual([]);
    expect(broken.compileError).toMatch(/resolve reference|can't resolve/);
  });
});
