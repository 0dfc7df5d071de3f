/**
 * Signalling a whole process group: shell commands start children and grandchildren (`sleep 100 &`),
 * and stopping only the shell would leave them running.
 */

/** How long a group gets to exit after SIGTERM before SIGKILL (ms). */
export const defaultKillGraceMs = 2_000;

/** Sends `signal` to every process in the group led by `pid`; false when none is left. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the group, then SIGKILL once `exited` settles or the grace period ends, whichever is
 * first. The SIGKILL is sent even after the leader exited, because a grandchild that ignores SIGTERM
 * keeps the group alive.
 */
export async function terminateProcessGroup(
  pid: number,
  exited: Promise<unknown>,
  graceMs: number = defaultKillGraceMs,
): Promise<void> {
  if (!signalProcessGroup(pid, 'SIGTERM')) return;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([
    exited.then(
      () => undefined,
      () => undefined,
    ),
    grace,
  ]);
  clearTimeout(timer);
  signalProcessGroup(pid, 'SIGKILL');
}
