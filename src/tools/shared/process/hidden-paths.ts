import { realpathSync } from 'node:fs';
import { walkBounded } from '../../../core/bounded-walk.ts';
import type { ToolUseContext } from '../../../core/index.ts';
import { homeDirectory, workingDirectories } from '../paths.ts';
import { sandboxTmpKey } from './sandbox.ts';
import { sandboxConfigurationKey } from '../../../sandbox/config.ts';

/** How far the search for paths the Read deny rules cover goes, per call. */
export const hiddenPathScan = { maxDepth: 8, maxEntries: 20_000, homeDepth: 2, homeEntries: 4_000 } as const;

/**
 * The real paths a sandboxed command must not see: every existing path in the working directories
 * (and the first levels of home, where credentials live) that the user's Read deny rules cover,
 * found by a bounded walk that asks the engine's own deny check, so globs and `~` rules mean the
 * same inside the sandbox as for Read. Links are resolved to what they name. Empty when the session
 * has no Read deny rule.
 */
export function hiddenPathsFor(context: Pick<ToolUseContext, 'run'>): string[] {
  const found = new Set<string>();
  // `sandbox.filesystem.denyRead`: paths, not patterns, so no walk is needed.
  for (const path of context.run.resources?.peek(sandboxConfigurationKey)?.configuration.denyRead ?? []) {
    const real = realPath(path);
    if (real) found.add(real);
  }
  const denied = context.run.isReadDenied;
  if (!denied) return [...found];
  const cwd = context.run.cwd;
  const walk = (root: string, maxDepth: number, maxEntries: number) =>
    walkBounded(root, { maxDepth, maxEntries }, (path, entry) => {
      if (denied(path, cwd)) {
        const real = realPath(path);
        if (real) found.add(real);
        return 'skip';
      }
      return entry.name === '.git' ? 'skip' : 'descend';
    });
  for (const directory of workingDirectories(context)) {
    const root = realPath(directory);
    if (root && denied(root, cwd)) found.add(root);
    else if (root) walk(root, hiddenPathScan.maxDepth, hiddenPathScan.maxEntries);
  }
  const home = realPath(homeDirectory(context));
  if (home) walk(home, hiddenPathScan.homeDepth, hiddenPathScan.homeEntries);
  return [...found];
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The per-session parts of a sandbox policy: the session's private /tmp (when the context has a
 * session) and the paths the user's Read deny rules hide.
 */
export function sandboxExtras(context: Pick<ToolUseContext, 'run'>): {
  privateTmpDirectory?: string;
  hiddenPaths: string[];
} {
  const tmp = context.run.resources?.get(sandboxTmpKey).path;
  return { hiddenPaths: hiddenPathsFor(context), ...(tmp ? { privateTmpDirectory: tmp } : {}) };
}
