import { describe, expect, it } from 'vitest';
import { unixSocketFilter } from './seccomp.ts';

/**
 * Runs a classic-BPF seccomp program on one system call, the way the kernel does: `seccomp_data`
 * is { nr: u32, arch: u32, instruction_pointer: u64, args: u64[6] } (little-endian here). Only the
 * instructions the filter uses are known; anything else fails the test.
 */
function run(program: Buffer, call: { arch: number; nr: number; args?: number[] }): 'allow' | 'eperm' {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr >>> 0, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  for (const [i, arg] of (call.args ?? []).entries()) data.writeUInt32LE(arg >>> 0, 16 + i * 8);
  let accumulator = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jumpTrue = program.readUInt8(pc * 8 + 2);
    const jumpFalse = program.readUInt8(pc * 8 + 3);
    const value = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) accumulator = data.readUInt32LE(value);
    else if (code === 0x15) pc += accumulator === value ? jumpTrue : jumpFalse;
    else if (code === 0x06) {
      if (value === 0x7fff0000) return 'allow';
      if (value === (0x00050000 | 1)) return 'eperm';
      throw new Error(`unexpected return value ${value.toString(16)}`);
    } else throw new Error(`unexpected instruction ${code.toString(16)}`);
  }
  throw new Error('the program ran off its end');
}

const x32 = 0x40000000;
const families = { AF_UNIX: 1, AF_INET: 2, AF_INET6: 10, AF_NETLINK: 16, AF_PACKET: 17 } as const;
const arches = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    socketpair: 53,
    // read, write, openat, connect, io_uring_setup's neighbours (pidfd_open 434, clone3 435)
    ordinary: [0, 1, 257, 42, 424, 428, 434, 435],
    spellings: [0, x32],
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    socketpair: 199,
    ordinary: [63, 64, 56, 203, 424, 428, 434, 435],
    spellings: [0],
  },
} as const;
const ioUring = { io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427 } as const;

describe('the Unix-socket seccomp filter', () => {
  for (const [arch, known] of Object.entries(arches)) {
    const program = unixSocketFilter(arch);
    it(`${arch}: refuses socket(AF_UNIX) and io_uring in every spelling, allows the rest`, () => {
      expect(program).toBeDefined();
      if (!program) return;
      let decisions = 0;
      for (const spelling of known.spellings) {
        // socket(family, type, protocol): only AF_UNIX is refused, whatever the type bits.
        for (const [family, number] of Object.entries(families)) {
          for (const type of [1, 2, 5, 1 | 0x80000, 2 | 0x800]) {
            const answer = run(program, {
              arch: known.audit,
              nr: known.socket + spelling,
              args: [number, type, 0],
            });
            expect(answer, `${family} type ${type}`).toBe(family === 'AF_UNIX' ? 'eperm' : 'allow');
            decisions++;
          }
        }
        // io_uring makes and connects sockets without socket(2) (IORING_OP_SOCKET/CONNECT): refused
        // whatever its arguments.
        for (const [name, nr] of Object.entries(ioUring)) {
          for (const args of [[], [1], [4, 0x1000], [0xffffffff, 1, 1]]) {
            expect(run(program, { arch: known.audit, nr: nr + spelling, args }), name).toBe('eperm');
            decisions++;
          }
        }
        // socketpair(AF_UNIX) reaches nothing outside; ordinary calls pass.
        expect(run(program, { arch: known.audit, nr: known.socketpair + spelling, args: [1, 1, 0] })).toBe(
          'allow',
        );
        for (const nr of known.ordinary) {
          expect(run(program, { arch: known.audit, nr: nr + spelling, args: [1] })).toBe('allow');
          decisions++;
        }
      }
      // Another ABI (32-bit code: socketcall, its own io_uring numbers) fails as a whole.
      for (const nr of [102, 359, 425, 0, 3]) {
        expect(run(program, { arch: 0x40000003, nr, args: [1] })).toBe('eperm');
        decisions++;
      }
      expect(decisions).toBeGreaterThanOrEqual(known.spellings.length * 45 + 5);
    });
  }

  it('is undefined for an architecture it does not know (the caller then runs without it)', () => {
    expect(unixSocketFilter('mips')).toBeUndefined();
  });
});
