import { existsSync, statSync } from 'node:fs';
import type { ToolUseContext } from '../../../core/index.ts';
import { canonicalPath, isPathInside, workingDirectories } from '../paths.ts';
import { readBytes } from './output-files.ts';

/** What the final directory of a command means for the next one. */
export type CwdChange =
  | { kind: 'unchanged' }
  | { kind: 'moved'; cwd: string }
  | { kind: 'reset'; cwd: string; note: string };

/** The directory a command should start in, or the project root when the current one is gone. */
export function startingDirectory(context: Pick<ToolUseContext, 'run'>): { cwd: string; note?: string } {
  const { cwd, projectRoot } = context.run;
  if (isDirectory(cwd)) return { cwd };
  return {
    cwd: projectRoot,
    note: `Working directory ${cwd} no longer exists; the command ran in ${projectRoot}.`,
  };
}

/**
 * Reads the directory the command ended in (written by the wrapper's EXIT trap) and decides: stay
 * there when it is inside the working directories (compared as canonical paths, so a symlink or a
 * sibling like `/srv/proj_evil` does not count), otherwise go back to the project root with a note.
 */
export async function readCwdChange(
  cwdFile: string,
  context: Pick<ToolUseContext, 'run'>,
): Promise<CwdChange> {
  // Read like the output files: bounded, and never through a link the command may have planted.
  const written = (await readBytes(cwdFile, 0, 8192)).toString('utf8').replace(/\n$/, '');
  if (written === '' || !written.startsWith('/')) return { kind: 'unchanged' };
  const current = canonicalPath(context.run.cwd);
  const final = canonicalPath(written);
  if (final === current) return { kind: 'unchanged' };
  const inside = workingDirectories(context).some((directory) =>
    isPathInside(final, canonicalPath(directory)),
  );
  if (inside && isDirectory(final)) return { kind: 'moved', cwd: final };
  const root = context.run.projectRoot;
  return { kind: 'reset', cwd: root, note: `Shell cwd was reset to ${root}` };
}

/** A context modifier that sets the working directory later calls start from. */
export function withCwd(cwd: string): (context: ToolUseContext) => ToolUseContext {
  return (context) => ({ ...context, run: { ...context.run, cwd } });
}

function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}
