import path from 'node:path';
import type { SimpleCommand } from './types.ts';

/**
 * Working-directory tracking across a compound command. `success` is the directory after the
 * statement succeeded (what the right side of `&&` sees), `any` after it ran at all; null = unknown.
 */
export interface CwdState {
  success: string | null;
  any: string | null;
}

/** Two possible directories collapse to unknown unless they agree. */
export function mergeCwd(left: string | null, right: string | null): string | null {
  return left === right ? left : null;
}

/**
 * Resolves a path as the shell would see it from `cwd`; null when that cannot be known statically.
 * `..` is kept, not folded: after a symbolic link it goes to the parent of the link's target, which
 * only a resolver that looks at the disk can tell (the permission engine walks such paths as the
 * kernel does). Empty and `.` components are dropped; they never change where a path leads.
 */
export function resolveShellPath(cwd: string | null, target: string, home?: string): string | null {
  let expanded = target;
  if (target === '~' || target.startsWith('~/')) {
    if (home === undefined) return null;
    expanded = home + target.slice(1);
  } else if (target.startsWith('~')) {
    return null;
  }
  if (path.isAbsolute(expanded)) return withoutDotSegments(expanded);
  if (cwd === null || !path.isAbsolute(cwd)) return null;
  return withoutDotSegments(`${cwd}/${expanded}`);
}

function withoutDotSegments(absolute: string): string {
  if (!hasDotOrEmptySegment(absolute)) return absolute;
  const segments = absolute.split('/').filter((segment) => segment !== '' && segment !== '.');
  return `/${segments.join('/')}`;
}

/** Whether an absolute path has an empty (`//`, trailing `/`) or `.` segment to drop. */
function hasDotOrEmptySegment(absolute: string): boolean {
  if (absolute.includes('//') || absolute.includes('/./') || absolute.endsWith('/.')) return true;
  return absolute.length > 1 && absolute.endsWith('/');
}

/** The directory a wrapper such as `env -C dir` switches to. */
export function resolveChdir(cwd: string | null, directory: string, home?: string): string | null {
  return resolveShellPath(cwd, directory, home);
}

const directoryCommands = new Set(['cd', 'chdir', 'pushd', 'popd']);

/**
 * For `cd`, `chdir`, `pushd` and `popd`: where the shell ends up if the command succeeds.
 * Returns undefined for any other command.
 */
export function changeDirectory(
  command: SimpleCommand,
  cwd: string | null,
  home?: string,
): { target: string | null } | undefined {
  const name = command.argv[0];
  if (name === undefined || !directoryCommands.has(name)) return undefined;
  if (name === 'popd') return { target: null };
  const rest = command.argv.slice(1);
  const kinds = command.argKinds?.slice(1) ?? rest.map(() => 'literal' as const);
  const operands: number[] = [];
  let noChange = false;
  let optionsDone = false;
  for (let index = 0; index < rest.length; index++) {
    const word = rest[index] ?? '';
    if (!optionsDone && word === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && /^-[LPe@n]+$/.test(word)) {
      if (name === 'pushd' && word.includes('n')) noChange = true;
      continue;
    }
    operands.push(index);
  }
  if (noChange) return { target: cwd };
  if (operands.length === 0) {
    if (name === 'pushd') return { target: null };
    return { target: home ?? null };
  }
  if (operands.length > 1) return { target: null };
  const index = operands[0] ?? 0;
  const target = rest[index] ?? '';
  if (kinds[index] !== 'literal' || target === '-' || /^[+-]\d+$/.test(target)) return { target: null };
  return { target: resolveShellPath(cwd, target, home) };
}
