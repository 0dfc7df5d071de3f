import type { DenyFilter } from '../shared/deny-filter.ts';
import type { GrepSpec } from './grep-spec.ts';

/**
 * Wraps Grep's line consumer so lines from files the Read deny rules hide never reach it: paging
 * (`offset`, `head_limit`) then counts only what the model may see. Content and count lines arrive
 * with a NUL after the path (`nullAfterPath`) and leave in ripgrep's usual `path:` form.
 * `showLineNumbers` is what the caller asked for; content searches run with line numbers on, because
 * without them ripgrep's NUL also swallows the `:`/`-` that tells matches from context lines.
 */
export function filterGrepLines(
  spec: Pick<GrepSpec, 'mode' | 'nullAfterPath'>,
  filter: DenyFilter,
  showLineNumbers: boolean,
  onLine: (line: string) => boolean,
): (line: string) => boolean {
  if (spec.mode === 'files_with_matches' || !spec.nullAfterPath) {
    return (line) => (filter.isHidden(line) ? true : onLine(line));
  }
  if (spec.mode === 'count') {
    return (line) => {
      const cut = line.indexOf('\0');
      // A line that names no file cannot be checked; leaving it out is the safe side.
      if (cut === -1) return true;
      const path = line.slice(0, cut);
      return filter.isHidden(path) ? true : onLine(`${path}:${line.slice(cut + 1)}`);
    };
  }
  // Context groups are separated by `--`; hold each one back until a visible line follows it, so
  // hidden files leave no empty groups behind.
  let pendingSeparator = false;
  let shownAny = false;
  return (line) => {
    if (line === '--') {
      pendingSeparator = true;
      return true;
    }
    const cut = line.indexOf('\0');
    if (cut === -1) return true;
    const path = line.slice(0, cut);
    if (filter.isHidden(path)) return true;
    const rest = line.slice(cut + 1);
    const numbered = /^(\d+)([:-])/.exec(rest);
    const separator = numbered?.[2] ?? ':';
    const text = numbered && !showLineNumbers ? rest.slice(numbered[0].length) : rest;
    if (pendingSeparator && shownAny && !onLine('--')) return false;
    pendingSeparator = false;
    shownAny = true;
    return onLine(`${path}${separator}${text}`);
  };
}
