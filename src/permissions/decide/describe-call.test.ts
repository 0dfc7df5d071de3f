import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeCall } from './describe-call.ts';

/** The call in words as it was written before long commands were read only as far as needed. */
const naive = (command: string) => {
  const single = command.replace(/\s+/g, ' ').trim();
  return `run \`${single.length > 160 ? `${single.slice(0, 159)}…` : single}\``;
};

describe('describeCall', () => {
  it('describes a command of any length and spacing as collapsing the whole text would', () => {
    const piece = fc.constantFrom('a', 'echo', ' ', '  ', '\n', '\t', 'x'.repeat(150), ' '.repeat(700), '&&');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const command = pieces.join('');
        expect(describeCall('Bash', { kind: 'command', command, shell: 'bash' })).toBe(naive(command));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads only the start of a 1 MB command', () => {
    const command = `${'echo 0123456789 && '.repeat(55_000)}true`;
    const described = describeCall('Bash', { kind: 'command', command, shell: 'bash' });
    expect(described).toBe(naive(command));
    expect(described.length).toBeLessThan(200);
  });
});
