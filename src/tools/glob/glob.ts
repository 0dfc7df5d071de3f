import { join, sep } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { createDenyFilter, type DenyFilter, hiddenFilesNote } from '../shared/deny-filter.ts';
import { displayPath } from '../shared/paths.ts';
import {
  locateRipgrepForRun,
  type RipgrepExit,
  type RunRipgrepOptions,
  ripgrepErrorSummary,
  runRipgrep,
  runRipgrepLines,
  vcsDirectories,
} from '../shared/ripgrep.ts';
import { resolveSearchTarget } from '../shared/search-path.ts';
import { walkFiles } from '../shared/walk-files.ts';
import { NewestFirst } from '../shared/newest-first.ts';
import { newestThroughPerl, statHelperPerl } from '../shared/perl-newest.ts';
import { globFind, newestThroughFind } from '../shared/find-newest.ts';
import { globPrompt, maxGlobResults } from './glob.prompt.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';
import { globMagic, globSearchRoot, literalPrefix } from './glob-root.ts';

export { splitAbsolutePattern } from './glob-root.ts';

const inputSchema = z.strictObject({
  pattern: z.string().describe('The glob pattern to match files against'),
  path: z
    .string()
    .optional()
    .describe(
      'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
    ),
});

/** Glob's input. */
export type GlobInput = z.infer<typeof inputSchema>;

/** Matching files (cwd-relative when inside the cwd), newest first. */
export interface GlobOutput {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
  durationMs: number;
  /** Matching files left out because the user's Read deny rules cover them. */
  hiddenByDenyRules?: number;
}

/** How Glob treats ignore files and excluded directories. */
export interface GlobOptions {
  /** Honour .gitignore/.ignore/.rgignore. Default: true, unless CLAUDE_CODE_GLOB_NO_IGNORE=true in the run env. */
  respectIgnoreFiles?: boolean;
  /** Directory names skipped at any depth. Default: VCS directories and node_modules. */
  excludeDirectories?: readonly string[];
}

/**
 * Ignore files are honoured only on request: by default Glob lists gitignored files too, as the
 * reference does, so a pattern under `build/` finds what a recursive pattern finds there. `CLAUDE_CODE_GLOB_NO_IGNORE=false` (or
 * `EFFERENT_GLOB_NO_IGNORE=false`) turns .gitignore/.ignore/.rgignore on.
 */
function respectsIgnoreFiles(options: GlobOptions, context: ToolUseContext): boolean {
  if (options.respectIgnoreFiles !== undefined) return options.respectIgnoreFiles;
  const flag = (
    context.run.env['EFFERENT_GLOB_NO_IGNORE'] ?? context.run.env['CLAUDE_CODE_GLOB_NO_IGNORE']
  )?.toLowerCase();
  return flag === 'false' || flag === '0';
}

function excludedDirectories(options: GlobOptions, pattern: string, base: string): string[] {
  const defaults = options.excludeDirectories ?? [...vcsDirectories, 'node_modules'];
  // Asking for node_modules explicitly must not return nothing.
  const wantsNodeModules = pattern.includes('node_modules') || base.split(sep).includes('node_modules');
  return defaults.filter((name) => !(wantsNodeModules && name === 'node_modules'));
}

/**
 * One matching rule for every ripgrep source and the JS walker: the source only lists files (honouring
 * ignore files when asked, skipping excluded directories), and picomatch decides which match. ripgrep's
 * own `--glob` is not used for matching, because it overrides ignore files for whatever it names (a
 * gitignored `*.log` was listed, `build/*` was not) and lets `*` cross `/`.
 */
function globMatcher(pattern: string): (path: string) => boolean {
  try {
    return picomatch(pattern, { dot: true, basename: !pattern.includes('/'), strictBrackets: true });
  } catch (error) {
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `Invalid glob pattern "${pattern}": ${(error as Error).message}. Fix the pattern (e.g. "**/*.ts", "src/*.{js,ts}") and retry.`,
    );
  }
}

/**
 * True when ripgrep's own `--glob` matches exactly what picomatch would, so its pre-filter is the
 * whole answer: a star and a literal suffix (`*.ts`, `*.test.js`), alone or after a leading globstar
 * segment. ripgrep's star may cross `/`, but a leading one only reaches back over directories that the
 * basename rule (or the globstar) admits anyway.
 */
function ripgrepGlobIsExact(pattern: string): boolean {
  return /^(?:\*\*\/)?\*[^*?[\]{}()!\\/]+$/.test(pattern);
}

async function listWithRipgrep(
  rgPath: string,
  root: string,
  pattern: string,
  excluded: string[],
  respect: boolean,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
  order: NewestFirst,
): Promise<void> {
  const args = ['--files', '--hidden', '--no-require-git', '--no-config'];
  // ripgrep may pre-filter in parallel when its glob admits a superset of what picomatch matches
  // (its `*` also crosses `/`): not for extglobs, negations or escapes, and not with ignore files
  // honoured, where a positive --glob would re-admit ignored files. It comes before the excluded
  // directories, because a later glob wins.
  const prefiltered = !respect && !/[()\\]/.test(pattern) && !pattern.startsWith('!');
  if (prefiltered) args.push(`--glob=${pattern}`);
  for (const name of excluded) args.push('--glob', `!${name}`);
  if (!respect) args.push('--no-ignore');
  // Walking only the literal prefix is faster, but ripgrep searches a directory it is given even when
  // an ignore file excludes it, so with ignore files honoured the whole root is walked.
  const prefix = respect ? '' : literalPrefix(pattern);
  if (prefix) args.push('--', prefix);
  const options = { cwd: root, env: context.run.env, signal: context.run.abortController.signal };
  let found = 0;
  const exact = prefiltered && ripgrepGlobIsExact(pattern);
  const exit =
    exact && !filter
      ? await listExact(rgPath, args, options, order, (count) => {
          found += count;
        })
      : await listMatching(
          rgPath,
          args,
          options,
          exact ? () => true : globMatcher(pattern),
          filter,
          order,
          () => found++,
        );
  // A missing literal prefix directory is simply no match.
  if (
    exit.exitCode === 2 &&
    found === 0 &&
    /error/i.test(exit.stderr) &&
    !/No such file or directory/i.test(exit.stderr)
  ) {
    throw new EfferentError(ErrorCodes.toolFailed, `Glob failed: ${ripgrepErrorSummary(exit.stderr)}`);
  }
}

/**
 * When ripgrep's list is the whole answer: ripgrep runs under the system's perl, which stats every
 * path as it comes and sends back only those that can be among the newest (`newestThroughPerl`);
 * without perl (or when it can't run here), ripgrep's output goes to the stat threads as it comes,
 * undecoded, and they send back only each batch's newest. Paths are NUL-separated either way, so a
 * name may hold a newline.
 */
async function listExact(
  rgPath: string,
  args: string[],
  options: RunRipgrepOptions,
  order: NewestFirst,
  onFound: (count: number) => void,
): Promise<RipgrepExit> {
  const listArgs = [...args];
  listArgs.splice(listArgs.indexOf('--files') + 1, 0, '--null');
  const perl = statHelperPerl(options.env ?? {});
  if (perl) {
    const newest = await newestThroughPerl({
      perl,
      command: [rgPath, ...listArgs],
      root: options.cwd,
      limit: order.limit,
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (newest) {
      order.merge(newest.stamped);
      onFound(newest.listed);
      return { exitCode: newest.exitCode, stderr: newest.stderr, stoppedEarly: false };
    }
  }
  return runRipgrepLines(
    rgPath,
    listArgs,
    options,
    (lines) => {
      order.enqueueLines(lines, '\0');
      onFound(lines.length);
    },
    '\0',
  );
}

/** Lists with ripgrep, keeping the paths `matches` accepts and the deny rules don't hide. */
function listMatching(
  rgPath: string,
  args: string[],
  options: RunRipgrepOptions,
  matches: (path: string) => boolean,
  filter: DenyFilter | undefined,
  order: NewestFirst,
  onFound: () => void,
): Promise<RipgrepExit> {
  return runRipgrep(rgPath, args, options, (line) => {
    const path = line.startsWith('./') ? line.slice(2) : line;
    if (!matches(path) || filter?.isHidden(join(options.cwd, path))) return true;
    // Stat'ed now (on a stat thread), while ripgrep is still walking, for the newest-first order.
    order.enqueue(path);
    onFound();
    return true;
  });
}

/**
 * The `-name` pattern that admits a superset of what `pattern` matches, when its last segment is a
 * star and a literal suffix (`*.ts`) or a literal name: the basename of every match must match it.
 * Undefined for other patterns (and for extglobs, escapes, negations), which find can't pre-filter.
 */
function findNameFilter(pattern: string): string | undefined {
  if (/[()\\]/.test(pattern) || pattern.startsWith('!')) return undefined;
  const last = pattern.slice(pattern.lastIndexOf('/') + 1);
  if (/^\*[^*?[\]{}()!\\/]+$/.test(last)) return last;
  return last !== '' && last !== '.' && last !== '..' && !globMagic.test(last) ? last : undefined;
}

/**
 * Lists through GNU find, which walks and stats in one pass, when it gives the same answer as
 * ripgrep with the stat of every match: ignore files not honoured (find knows none), and a pattern
 * whose last segment gives find a `-name` filter that admits a superset of its matches. The walk
 * starts at the pattern's literal leading directories, as ripgrep's does; picomatch decides what
 * matches, except for an exact glob, whose `-name` form (`*.ts` for `*.ts` or after a leading
 * globstar) is already exact. False when find was not used (not there, not GNU, another pattern, or
 * it could not list faithfully), so the caller lists another way.
 */
async function listWithFind(
  root: string,
  pattern: string,
  excluded: string[],
  respect: boolean,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
  order: NewestFirst,
): Promise<boolean> {
  const name = respect ? undefined : findNameFilter(pattern);
  if (name === undefined) return false;
  const find = await globFind(context.run.env);
  if (!find) return false;
  const matches = ripgrepGlobIsExact(pattern) ? undefined : globMatcher(pattern);
  const hidden = filter ? (path: string) => filter.isHidden(join(root, path)) : undefined;
  const prefix = literalPrefix(pattern);
  const found = await newestThroughFind({
    find,
    root,
    ...(prefix ? { under: prefix } : {}),
    name,
    excluded,
    limit: order.limit,
    signal: context.run.abortController.signal,
    ...(matches || hidden
      ? { accept: (path: string) => (!matches || matches(path)) && !hidden?.(path) }
      : {}),
  });
  if (!found) return false;
  order.merge(found.stamped);
  return true;
}

async function listWithJs(
  root: string,
  pattern: string,
  excluded: string[],
  respect: boolean,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
  order: NewestFirst,
): Promise<void> {
  const matches = globMatcher(pattern);
  for await (const path of walkFiles({
    root,
    respectIgnoreFiles: respect,
    excludeDirectories: excluded,
    signal: context.run.abortController.signal,
  })) {
    if (matches(path) && !filter?.isHidden(join(root, path))) order.enqueue(path);
  }
}

/** Makes a Glob tool with the given ignore policy ({@link GlobTool} uses the defaults). */
export function createGlobTool(options: GlobOptions = {}) {
  return buildTool<GlobInput, GlobOutput>({
    name: 'Glob',
    searchHint: 'find files by name pattern',
    inputSchema,
    prompt: globPrompt,
    description: (input) => `Find files matching ${input.pattern ?? ''}`,
    userFacingName: () => 'Glob',
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    interruptBehavior: () => 'cancel',
    backfillObservableInput: pathDeclarations('path', 'read').backfillObservableInput,
    // The directory the search walks, which an absolute or `..` pattern moves away from `path`.
    // The directory the walk starts in: the root plus the pattern's literal leading directories, which
    // may be a link leading out of the root (`vault/*` lists what `vault` leads to).
    permissionTarget: (input, context) => {
      const { root, pattern } = globSearchRoot(input, context);
      const prefix = literalPrefix(pattern);
      return { kind: 'path', path: prefix ? join(root, prefix) : root, access: 'read' };
    },
    toAutoClassifierInput: (input) => `${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
    async call(input, context) {
      const started = performance.now();
      const { root, pattern } = globSearchRoot(input, context);
      const target = await resolveSearchTarget(root, context, false);
      const excluded = excludedDirectories(options, pattern, target.absolutePath);
      const respect = respectsIgnoreFiles(options, context);
      const rg = await locateRipgrepForRun(context);
      const filter = createDenyFilter(context);
      // Newest first across the whole tree, whichever source listed the files.
      const order = new NewestFirst(target.absolutePath, maxGlobResults + 1);
      if (await listWithFind(target.absolutePath, pattern, excluded, respect, context, filter, order)) {
        // Listed and stat'ed by find.
      } else if (rg.source === 'js') {
        await listWithJs(target.absolutePath, pattern, excluded, respect, context, filter, order);
      } else {
        await listWithRipgrep(
          rg.path,
          target.absolutePath,
          pattern,
          excluded,
          respect,
          context,
          filter,
          order,
        );
      }
      await order.settled(context.run.abortController.signal);
      const found = order.ordered();
      const truncated = found.length > maxGlobResults;
      const filenames = found
        .slice(0, maxGlobResults)
        .map((path) => displayPath(join(target.absolutePath, path), context.run.cwd));
      const data: GlobOutput = {
        filenames,
        numFiles: filenames.length,
        truncated,
        durationMs: Math.round(performance.now() - started),
      };
      if (filter?.hiddenFiles) data.hiddenByDenyRules = filter.hiddenFiles;
      return { data };
    },
    mapResultToBlock: (output, toolUseId) => {
      const hidden = hiddenFilesNote(output.hiddenByDenyRules);
      const hiddenLine = hidden ? `\n${hidden}` : '';
      if (output.numFiles === 0)
        return { type: 'tool_result', toolUseId, content: `No files found${hiddenLine}` };
      const note = output.truncated
        ? `\n(Results are truncated to the ${maxGlobResults} most recently modified files. Use a more specific path or pattern.)`
        : '';
      return {
        type: 'tool_result',
        toolUseId,
        content: `${output.filenames.join('\n')}${note}${hiddenLine}`,
      };
    },
    renderToolUse: (input) => `Glob(${input.pattern ?? ''})`,
  });
}

/** Finds files by glob pattern, newest first, capped at 100. */
export const GlobTool = createGlobTool();
