import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupDigits } from './group-digits.ts';

describe('groupDigits', () => {
  it('writes whole numbers as en-US toLocaleString does', () => {
    for (const value of [0, 7, 999, 1000, 25_000, 120_000, 600_000, 1_234_567, -1000, -999_999])
      expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
      }),
    );
  });
});
