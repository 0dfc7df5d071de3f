import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNewlineCounter } from './newline-count.ts';

describe('createNewlineCounter', () => {
  it('counts like a plain loop, SIMD and JS alike, at any alignment', () => {
    const simd = createNewlineCounter(4096);
    const plain = createNewlineCounter(4096, true);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.nat(100), fc.nat(100), (bytes, cutStart, cutEnd) => {
        for (const counter of [simd, plain])
          counter.buffer.set(bytes.map((byte) => (byte % 4 === 0 ? 10 : byte)));
        const data = simd.buffer.subarray(0, bytes.length);
        const start = Math.min(cutStart, bytes.length);
        const end = Math.max(start, bytes.length - cutEnd);
        const expected = [...data.subarray(start, end)].filter((byte) => byte === 10).length;
        expect(simd.count(start, end)).toBe(expected);
        expect(plain.count(start, end)).toBe(expected);
      }),
      { numRuns: Number(process.env['EFFERENT_FUZZ_RUNS'] ?? 200) },
    );
  });
});
