import { resolve } from 'node:path';
import type { ToolUseContext } from '../../core/index.ts';

/** One search's view of the Read deny rules: which result paths to drop, and how many files it dropped. */
export interface DenyFilter {
  /** True when the path (absolute, or relative to the run's cwd) must not appear in the results. */
  isHidden(path: string): boolean;
  /** Distinct files dropped so far. */
  readonly hiddenFiles: number;
}

/**
 * A filter for one search, or undefined when the session has no Read deny rules (the common case,
 * which then costs nothing). Answers are remembered for the search's lifetime only, since content
 * mode asks about the same file once per line and the filesystem may change between searches.
 */
export function createDenyFilter(context: Pick<ToolUseContext, 'run'>): DenyFilter | undefined {
  const check = context.run.isReadDenied;
  if (!check) return undefined;
  const cwd = context.run.cwd;
  const answers = new Map<string, boolean>();
  let hiddenFiles = 0;
  return {
    isHidden(path) {
      let hidden = answers.get(path);
      if (hidden === undefined) {
        hidden = check(resolve(cwd, path), cwd);
        answers.set(path, hidden);
        if (hidden) hiddenFiles++;
      }
      return hidden;
    },
    get hiddenFiles() {
      return hiddenFiles;
    },
  };
}

/** The one line a search result carries when deny rules removed something; never names the files. */
export function hiddenFilesNote(count: number | undefined): string {
  if (!count) return '';
  return count === 1
    ? "1 matching file is hidden by the user's Read deny rules."
    : `${count} matching files are hidden by the user's Read deny rules.`;
}
