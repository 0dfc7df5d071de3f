import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hookJsonSchema, parseHookJson, plainHookOutput } from './hook-output.ts';

/** Values of every type each field might be given, right and wrong. */
const anyValue = fc.oneof(
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('allow', 'deny', 'ask', 'defer', 'approve', 'block', 'PreToolUse'),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 2.5),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.constant({ behavior: 'allow' }),
);
const topKeys = [
  'continue',
  'stopReason',
  'suppressOutput',
  'systemMessage',
  'decision',
  'reason',
  'async',
  'asyncTimeout',
  'unknownField',
];
const specificKeys = [
  'hookEventName',
  'permissionDecision',
  'permissionDecisionReason',
  'additionalContext',
  'retry',
  'updatedInput',
  'decision',
  'somethingNew',
];
const specific = fc.dictionary(fc.constantFrom(...specificKeys), anyValue, { maxKeys: 4 });
const output = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...topKeys), anyValue, { maxKeys: 5 }),
    fc.option(specific, { nil: undefined }),
  )
  .map(([top, nested]) => (nested === undefined ? top : { ...top, hookSpecificOutput: nested }));

describe('hook JSON output', () => {
  it('the plain fast path accepts only what the schema accepts, and gives the same value', () => {
    fc.assert(
      fc.property(output, (value) => {
        const fast = plainHookOutput(value);
        const schema = hookJsonSchema.safeParse(value);
        if (fast !== undefined) {
          expect(schema.success).toBe(true);
          expect(fast).toStrictEqual(schema.data);
        }
        const parsed = parseHookJson(value);
        expect(parsed.ok).toBe(schema.success);
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes the fast path for the everyday answers and copies them', () => {
    const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } };
    const fast = plainHookOutput(answer);
    expect(fast).toEqual(answer);
    expect(fast).not.toBe(answer);
    expect(fast?.hookSpecificOutput).not.toBe(answer.hookSpecificOutput);
    expect(plainHookOutput({ continue: 'yes' })).toBeUndefined();
    expect(parseHookJson({ continue: 'yes' })).toMatchObject({ ok: false, message: /continue/ });
  });
});
