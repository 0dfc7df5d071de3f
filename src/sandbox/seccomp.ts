import { closeSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A classic-BPF seccomp program that makes `socket(AF_UNIX, …)` fail with EPERM, for bwrap's
 * `--seccomp`. Without it a sandboxed command with no network can still connect to any Unix socket
 * on the read-only host file system (a container daemon, the session bus, an agent socket): sockets
 * ignore read-only mounts. `socketpair` stays allowed, since its sockets reach nothing outside.
 *
 * The filter judges system calls, so it must see every way a socket is made. io_uring is a second
 * system-call interface that seccomp cannot look into: `IORING_OP_SOCKET` and `IORING_OP_CONNECT`
 * open and connect a Unix socket without any `socket(2)` call. The io_uring calls themselves
 * (setup, enter, register) therefore fail with EPERM too, as they do where a system disables
 * io_uring (`kernel.io_uring_disabled`); programs that use it (libuv, some runtimes) fall back.
 */

const loadWord = 0x20; // BPF_LD | BPF_W | BPF_ABS
const jumpIfEqual = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const returnValue = 0x06; // BPF_RET | BPF_K
const allow = 0x7fff0000; // SECCOMP_RET_ALLOW
const denyWithEperm = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const addressFamilyUnix = 1;
const x32SyscallBit = 0x40000000;

/**
 * The audit architecture and system-call numbers of the CPUs the filter knows: `socket`, and the
 * calls of an interface that makes sockets without it (io_uring: setup, enter, register; the same
 * numbers in the generic table arm64 uses and in x86-64's).
 */
const architectures: Readonly<
  Record<string, { audit: number; socket: number; socketMakers: readonly number[]; x32?: boolean }>
> = {
  x64: { audit: 0xc000003e, socket: 41, socketMakers: [425, 426, 427], x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, socketMakers: [425, 426, 427] },
};

function instruction(code: number, jumpTrue: number, jumpFalse: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt16LE(code, 0);
  bytes.writeUInt8(jumpTrue, 2);
  bytes.writeUInt8(jumpFalse, 3);
  bytes.writeUInt32LE(value >>> 0, 4);
  return bytes;
}

/**
 * The filter for `arch` (a `process.arch` value), or undefined when the architecture is unknown.
 * Syscalls made under another ABI (32-bit code on a 64-bit kernel) all fail, so the check cannot
 * be sidestepped through `socketcall`; x32 calls (the same ABI with bit 30 set) are judged like
 * native ones.
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const target = architectures[arch];
  if (!target) return undefined;
  const spellings = (call: number) => (target.x32 ? [call, call + x32SyscallBit] : [call]);
  const socketCalls = spellings(target.socket);
  const deniedCalls = target.socketMakers.flatMap(spellings);
  // Layout: [arch check] [load nr] [socket? → family check] [denied? → deny] allow,
  // family: load, AF_UNIX? → deny : allow.
  const comparisons = socketCalls.length + deniedCalls.length;
  const allowAfterComparisons = 4 + comparisons; // index of the `allow` after the comparisons
  const familyCheck = allowAfterComparisons + 1;
  const deny = familyCheck + 2;
  const program: Buffer[] = [
    instruction(loadWord, 0, 0, 4), // seccomp_data.arch
    instruction(jumpIfEqual, 1, 0, target.audit),
    instruction(returnValue, 0, 0, denyWithEperm),
    instruction(loadWord, 0, 0, 0), // seccomp_data.nr
  ];
  for (const call of socketCalls)
    program.push(instruction(jumpIfEqual, familyCheck - program.length - 1, 0, call));
  for (const call of deniedCalls) program.push(instruction(jumpIfEqual, deny - program.length - 1, 0, call));
  program.push(
    instruction(returnValue, 0, 0, allow),
    instruction(loadWord, 0, 0, 16), // low word of seccomp_data.args[0]: the address family
    instruction(jumpIfEqual, 0, 1, addressFamilyUnix),
    instruction(returnValue, 0, 0, denyWithEperm),
    instruction(returnValue, 0, 0, allow),
  );
  return Buffer.concat(program);
}

/**
 * A read-only descriptor holding `program`, for bwrap to read. The file is unlinked at once, so no
 * path to it exists that a sandboxed command could rewrite; close the descriptor when done.
 */
export function openFilterDescriptor(program: Uint8Array): number {
  const path = join(tmpdir(), `.efferent-seccomp-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(path, program, { flag: 'wx', mode: 0o600 });
  try {
    return openSync(path, 'r');
  } finally {
    unlinkSync(path);
  }
}

/** Closes a descriptor, ignoring one already closed. */
export function closeDescriptor(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
