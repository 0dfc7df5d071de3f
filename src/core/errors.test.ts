import { describe, expect, it } from 'vitest';
import { classifyToolError, EfferentError, ErrorCodes, errorMessage } from './errors.ts';

describe('EfferentError', () => {
  it('is recognised across package copies by its marker', () => {
    const error = new EfferentError(ErrorCodes.fileNotFound, 'missing /home/alice/secret.txt');
    expect(EfferentError.isInstance(error)).toBe(true);
    const foreign = Object.assign(new Error('x'), { [Symbol.for('efferent.error')]: true, code: 'internal' });
    expect(EfferentError.isInstance(foreign)).toBe(true);
    expect(EfferentError.isInstance(new Error('x'))).toBe(false);
    expect(EfferentError.isInstance(null)).toBe(false);
  });
  it('keeps its cause', () => {
    const cause = new Error('inner');
    expect(new EfferentError('internal', 'outer', { cause }).cause).toBe(cause);
  });
  it('has unique codes', () => {
    const codes = Object.values(ErrorCodes);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('classifyToolError never leaks messages or paths', () => {
  const secret = '/home/alice/.ssh/id_rsa token=abc123';
  const cases: Array<[unknown, string]> = [
    [new EfferentError('file_not_found', secret), 'efferent:file_not_found'],
    [Object.assign(new Error(secret), { code: 'ENOENT' }), 'system:ENOENT'],
    [new TypeError(secret), 'TypeError'],
    [Object.assign(new Error(secret), { name: `Custom ${secret}` }), 'Error'],
    [Object.assign(new Error(secret), { code: secret }), 'Error'],
    [secret, 'string'],
    [42, 'unknown'],
    [{ message: secret }, 'Error'],
  ];
  for (const [error, expected] of cases) {
    it(`classifies ${expected}`, () => {
      const label = classifyToolError(error);
      expect(label).toBe(expected);
      expect(label).not.toContain('alice');
    });
  }
});

describe('errorMessage', () => {
  it('reads errors, strings and objects', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage({ a: 1 })).toBe('{"a":1}');
  });
});
