import { vcsDirectories } from '../shared/ripgrep.ts';
import { grepLimits } from './grep.prompt.ts';

/** What to search for and how to print it; both ripgrep and the JS fallback follow it. */
export interface GrepSpec {
  pattern: string;
  /** The search root as given to ripgrep (relative to cwd), or undefined for the cwd itself. */
  searchArg: string | undefined;
  /** Absolute path of the root (a directory or one file). */
  absoluteTarget: string;
  targetIsFile: boolean;
  mode: 'content' | 'files_with_matches' | 'count';
  caseInsensitive: boolean;
  onlyMatching: boolean;
  lineNumbers: boolean;
  before: number;
  after: number;
  multiline: boolean;
  globs: string[];
  type: string | undefined;
  /**
   * Content and count lines end the path with a NUL byte instead of `:`/`-` (rg --null), so the
   * ordering by path and the deny filter can split off the path even when a file name contains a
   * colon. Set for every directory search in content and count mode; never for files_with_matches,
   * where each line is a path already.
   */
  nullAfterPath?: boolean;
}

/**
 * Splits Grep's `glob` into ripgrep globs: whitespace or commas separate patterns, except inside
 * braces, so "*.ts, *.tsx" and "*.{ts,tsx}" both work.
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  const globs: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of glob) {
    if (char === '{') depth++;
    if (char === '}') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current) globs.push(current);
      current = '';
    } else current += char;
  }
  if (current) globs.push(current);
  return globs;
}

/**
 * ripgrep arguments for a spec. ripgrep searches in parallel and prints in no fixed order; the caller
 * makes the order deterministic so offset paging never skips or repeats: lines and counts by path
 * (ripgrep's `--sort path` would make the search single-threaded), file lists newest first (as the
 * reference does; ripgrep's `--sortr modified` is per directory before version 14).
 */
export function ripgrepArgs(spec: GrepSpec): string[] {
  const args = ['--hidden', '--no-require-git', '--color', 'never', '--no-heading'];
  args.push('--max-columns', String(grepLimits.maxColumns), '--max-columns-preview');
  if (spec.caseInsensitive) args.push('-i');
  if (spec.multiline) args.push('-U', '--multiline-dotall');
  if (spec.type) args.push(`--type=${spec.type}`);
  if (spec.nullAfterPath && spec.mode !== 'files_with_matches') args.push('--null');
  for (const glob of spec.globs) args.push(`--glob=${glob}`);
  // After the user's globs: later globs win in ripgrep, so a broad include cannot re-admit .git.
  for (const directory of vcsDirectories) args.push('--glob', `!${directory}`);
  switch (spec.mode) {
    case 'files_with_matches':
      // Unsorted (parallel); the caller orders the list newest first itself (see newestFirst).
      args.push('--files-with-matches');
      break;
    case 'count':
      args.push('--count', '--with-filename');
      break;
    case 'content':
      if (spec.lineNumbers) args.push('--line-number');
      if (spec.onlyMatching) args.push('--only-matching');
      if (spec.before > 0) args.push('--before-context', String(spec.before));
      if (spec.after > 0) args.push('--after-context', String(spec.after));
      break;
  }
  args.push(`--regexp=${spec.pattern}`);
  if (spec.searchArg !== undefined) args.push('--', spec.searchArg);
  return args;
}
