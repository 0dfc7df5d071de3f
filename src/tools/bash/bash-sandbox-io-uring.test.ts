import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../shared/process/sandbox.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { createBashTool } from './bash.ts';

/**
 * io_uring makes and connects a Unix socket without `socket(2)` (IORING_OP_SOCKET, IORING_OP_CONNECT),
 * so a filter on `socket(AF_UNIX)` alone let a sandboxed command reach any daemon listening on a
 * socket file: a container daemon, the session bus (`systemd-run --user` runs anything outside the
 * sandbox), an ssh agent. A real program does it here, against a real daemon outside the workspace.
 */
const uringConnect = String.raw`
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
static int ring; static unsigned *sqTail, *sqMask, *sqArray, *cqHead, *cqTail, *cqMask;
static struct io_uring_sqe *sqes; static struct io_uring_cqe *cqes;
static int submit(struct io_uring_sqe *entry) {
  unsigned tail = *sqTail, slot = tail & *sqMask;
  sqes[slot] = *entry; sqArray[slot] = slot;
  __atomic_store_n(sqTail, tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -errno;
  unsigned head = __atomic_load_n(cqHead, __ATOMIC_ACQUIRE);
  if (head == *cqTail) return -EAGAIN;
  int result = cqes[head & *cqMask].res;
  __atomic_store_n(cqHead, head + 1, __ATOMIC_RELEASE);
  return result;
}
int main(int argc, char **argv) {
  struct io_uring_params p; memset(&p, 0, sizeof p);
  ring = syscall(__NR_io_uring_setup, 4, &p);
  if (ring < 0) { printf("setup: %s\n", strerror(errno)); return 2; }
  char *sq = mmap(0, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
  char *cq = mmap(0, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
  sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  sqTail = (unsigned *)(sq + p.sq_off.tail); sqMask = (unsigned *)(sq + p.sq_off.ring_mask); sqArray = (unsigned *)(sq + p.sq_off.array);
  cqHead = (unsigned *)(cq + p.cq_off.head); cqTail = (unsigned *)(cq + p.cq_off.tail); cqMask = (unsigned *)(cq + p.cq_off.ring_mask);
  cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  struct io_uring_sqe entry; memset(&entry, 0, sizeof entry);
  entry.opcode = IORING_OP_SOCKET; entry.fd = AF_UNIX; entry.off = strtoul(argv[2], 0, 0);
  int fd = submit(&entry);
  if (fd < 0) { printf("socket: %s\n", strerror(-fd)); return 3; }
  struct sockaddr_un address; memset(&address, 0, sizeof address); address.sun_family = AF_UNIX;
  strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
  memset(&entry, 0, sizeof entry);
  entry.opcode = IORING_OP_CONNECT; entry.fd = fd; entry.addr = (unsigned long)&address; entry.off = sizeof address;
  int connected = submit(&entry);
  if (connected < 0) { printf("connect: %s\n", strerror(-connected)); return 4; }
  char buffer[128]; ssize_t n = read(fd, buffer, sizeof buffer - 1); buffer[n > 0 ? n : 0] = 0;
  printf("reached: %s", buffer);
  return 0;
}
`;

const availability = probeSandbox();
function compile(directory: string): string | undefined {
  try {
    writeFileSync(join(directory, 'uring-connect.c'), uringConnect);
    execFileSync('cc', ['-O1', '-o', join(directory, 'uring-connect'), join(directory, 'uring-connect.c')], {
      stdio: 'ignore',
    });
    return join(directory, 'uring-connect');
  } catch {
    return undefined;
  }
}

// Outside /tmp on purpose: the sandbox's /tmp is private, and the daemon must be on the real file system.
const outside = mkdtempSync('/var/tmp/efferent-uring-');
const program = compile(outside);
const socketPath = join(outside, 'daemon.sock');
/** Whether io_uring works on this host at all (kernel.io_uring_disabled, an outer seccomp filter). */
let hostHasIoUring = false;
const skipReason = !availability.available ? availability.reason : program ? '' : 'no C compiler';

describe.skipIf(skipReason !== '')(
  `io_uring in the bubblewrap sandbox${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const daemon = createServer((socket) => socket.end('daemon says hi\n'));
    let project: ShellProject;
    beforeAll(async () => {
      await new Promise<void>((resolve) => daemon.listen(socketPath, resolve));
      project = makeShellProject();
      const plain = await run(`${program} ${socketPath} 1`, createBashTool({ sandbox: 'off' }));
      hostHasIoUring = plain.stdout.includes('reached: daemon says hi');
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => daemon.close(() => resolve()));
      await project?.cleanup();
      rmSync(outside, { recursive: true, force: true });
    });

    async function run(command: string, tool: ReturnType<typeof createBashTool>) {
      const { result } = await callTool<ShellOutput>(tool, { command }, project.context);
      return result.data;
    }

    it('cannot connect to a host daemon through IORING_OP_SOCKET + IORING_OP_CONNECT', async (test) => {
      if (!hostHasIoUring) test.skip();
      // Socket types (stream, seqpacket, with CLOEXEC / NONBLOCK bits) × how the program is started
      // (directly, from sh -c, from a background job, from python), all in one sandboxed call.
      const types = ['1', '5', String(1 | 0x80000), String(1 | 0x800)];
      const starters = [
        (line: string) => line,
        (line: string) => `sh -c '${line}'`,
        (line: string) => `(${line}) & wait $!`,
        (line: string) =>
          `python3 -c 'import subprocess,sys; sys.exit(subprocess.call(sys.argv[1:]))' ${line}`,
      ];
      const lines = types.flatMap((type) =>
        starters.map(
          (start, i) => `echo "case ${type}/${i}: $(${start(`${program} ${socketPath} ${type}`)})"`,
        ),
      );
      const data = await run(lines.join('; '), createBashTool({ sandbox: 'required' }));
      const cases = data.stdout.split('\n').filter((line) => line.startsWith('case '));
      expect(cases).toHaveLength(types.length * starters.length);
      for (const line of cases) {
        expect(line).not.toContain('daemon says hi');
        expect(line).toMatch(/setup: Operation not permitted/);
      }
    });

    it('still connects where the user allowed Unix sockets (no filter), so the test is live', async (test) => {
      if (!hostHasIoUring) test.skip();
      const data = await run(
        `${program} ${socketPath} 1`,
        createBashTool({ sandbox: 'required', allowUnixSockets: true }),
      );
      expect(data.stdout).toContain('reached: daemon says hi');
    });

    it('leaves programs that try io_uring and fall back working (node with UV_USE_IO_URING=1)', async () => {
      const data = await run(
        `UV_USE_IO_URING=1 node -e "require('fs').promises.readFile('/etc/hostname').then(() => console.log('node ok'))"; ` +
          `python3 -c "import socket; a, b = socket.socketpair(); a.send(b'pair ok'); print(b.recv(7).decode())"`,
        createBashTool({ sandbox: 'required' }),
      );
      expect(data.stdout).toBe('node ok\npair ok\n');
    });
  },
);
