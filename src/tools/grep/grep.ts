import { relative } from 'node:path';
import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type ToolUseContext, lazySchema } from '../../core/index.ts';
import { isPathInside } from '../shared/paths.ts';
import { locateRipgrepForRun, ripgrepErrorSummary, runRipgrep } from '../shared/ripgrep.ts';
import { resolveSearchTarget } from '../shared/search-path.ts';
import { grepLimits, grepPrompt } from './grep.prompt.ts';
import { type GrepSpec, ripgrepArgs, splitGlobs } from './grep-spec.ts';
import { NewestFirst } from '../shared/newest-first.ts';
import { jsGrep } from './js-grep.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';
import { createDenyFilter, type DenyFilter, hiddenFilesNote } from '../shared/deny-filter.ts';
import { filterGrepLines } from './grep-deny-filter.ts';
import { PathOrderedLines } from './path-order.ts';

/** The deny filter of a session without Read deny rules. */
const showEverything: DenyFilter = { isHidden: () => false, hiddenFiles: 0 };

const inputSchema = lazySchema(() =>
  z.strictObject({
    pattern: z.string().describe('The regular expression pattern to search for in file contents'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search in (rg PATH). Defaults to current working directory.'),
    glob: z
      .string()
      .optional()
      .describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
    type: z
      .string()
      .optional()
      .describe(
        'File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types.',
      ),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe(
        'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
      ),
    '-i': z.boolean().optional().describe('Case insensitive search (rg -i)'),
    '-o': z
      .boolean()
      .optional()
      .describe('Print only the matched parts of matching lines (rg -o). Requires output_mode: "content".'),
    '-n': z
      .boolean()
      .optional()
      .describe(
        'Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.',
      ),
    '-B': z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.',
      ),
    '-A': z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.',
      ),
    '-C': z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.',
      ),
    context: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Alias for -C: lines of context before and after each match.'),
    head_limit: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250 when unspecified. Pass 0 for unlimited.',
      ),
    offset: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". Defaults to 0.',
      ),
    multiline: z
      .boolean()
      .optional()
      .describe(
        'Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.',
      ),
  }),
);

/** Grep's input. */
export type GrepInput = z.infer<ReturnType<typeof inputSchema>>;

/** What Grep found, one page of it. */
export interface GrepOutput {
  mode: 'content' | 'files_with_matches' | 'count';
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  /** Count mode: matching lines summed over the shown entries. */
  numMatches?: number;
  /** Set when head_limit cut the results: page on with offset. */
  appliedLimit?: number;
  appliedOffset?: number;
  /** Errors ripgrep reported alongside results (unreadable files and the like). */
  warnings?: string;
  /** Matching files left out because the user's Read deny rules cover them. */
  hiddenByDenyRules?: number;
}

function buildSpec(
  input: GrepInput,
  target: { absolutePath: string; isDirectory: boolean },
  cwd: string,
): GrepSpec {
  const mode = input.output_mode ?? 'files_with_matches';
  // Ordering by path and the deny filter both split the path off each content or count line (see
  // PathOrderedLines and filterGrepLines).
  const nullAfterPath = target.isDirectory && mode !== 'files_with_matches';
  const around = input.context ?? input['-C'];
  let searchArg: string | undefined;
  if (target.absolutePath !== cwd) {
    searchArg = isPathInside(target.absolutePath, cwd)
      ? relative(cwd, target.absolutePath)
      : target.absolutePath;
  }
  return {
    pattern: input.pattern,
    searchArg,
    absoluteTarget: target.absolutePath,
    targetIsFile: !target.isDirectory,
    mode,
    caseInsensitive: input['-i'] ?? false,
    onlyMatching: mode === 'content' && (input['-o'] ?? false),
    lineNumbers: mode === 'content' && (nullAfterPath || (input['-n'] ?? true)),
    before: mode === 'content' ? (around ?? input['-B'] ?? 0) : 0,
    after: mode === 'content' ? (around ?? input['-A'] ?? 0) : 0,
    multiline: input.multiline ?? false,
    globs: splitGlobs(input.glob),
    type: input.type,
    ...(nullAfterPath ? { nullAfterPath } : {}),
  };
}

const invalidPattern = /regex parse error|error parsing|unrecognized|unclosed|invalid/i;

/** `EFFERENT_JS_GREP_DEADLINE_MS` shortens or lengthens the JS fallback's per-file matching deadline. */
function jsDeadline(context: ToolUseContext): number | undefined {
  const value = Number(context.run.env['EFFERENT_JS_GREP_DEADLINE_MS']);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

async function search(
  spec: GrepSpec,
  input: GrepInput,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
): Promise<GrepOutput> {
  const limit = input.head_limit ?? grepLimits.defaultHeadLimit;
  const offset = input.offset ?? 0;
  const kept: string[] = [];
  let seen = 0;
  let collectedChars = 0;
  let truncated = false;
  let cappedByMemory = false;
  // Streams lines: skip `offset`, keep `limit`, and stop the search at the first line past the page.
  const onLine = (line: string): boolean => {
    seen++;
    if (seen <= offset) return true;
    if (limit > 0 && kept.length >= limit) {
      truncated = true;
      return false;
    }
    kept.push(line);
    collectedChars += line.length + 1;
    if (collectedChars > grepLimits.maxCollectedChars) {
      cappedByMemory = true;
      return false;
    }
    return true;
  };
  const consume = filterGrepLines(
    spec,
    filter ?? showEverything,
    spec.mode === 'content' && (input['-n'] ?? true),
    onLine,
  );
  const rg = await locateRipgrepForRun(context);
  const signal = context.run.abortController.signal;
  // Every order is global and the same for every source. A file list is ordered newest first before
  // paging, each file stat'ed (on a stat thread) as ripgrep names it (only the newest offset + head_limit + 1 are held). Lines and counts come in path order: ripgrep searches in parallel
  // (its --sort would make it single-threaded) and efferent orders the files, holding only those
  // that can still fall inside the page; the JS walker already visits files in path order.
  const newest =
    spec.mode === 'files_with_matches'
      ? new NewestFirst(context.run.cwd, limit > 0 ? offset + limit + 1 : undefined)
      : undefined;
  const byPath =
    rg.source !== 'js' && spec.nullAfterPath
      ? new PathOrderedLines(
          { offset, limit, maxChars: grepLimits.maxCollectedChars },
          filter ? (path) => filter.isHidden(path) : undefined,
        )
      : undefined;
  // Files the deny rules hide are dropped before they can take a place among the newest.
  const collect = newest
    ? (path: string) => void (filter?.isHidden(path) || newest.enqueue(path))
    : (byPath?.add ?? consume);
  const exit =
    rg.source === 'js'
      ? await jsGrep(spec, collect, signal, jsDeadline(context))
      : await runRipgrep(
          rg.path,
          ripgrepArgs(spec),
          { cwd: context.run.cwd, env: context.run.env, signal },
          collect,
        );
  if (newest) {
    await newest.settled(signal);
    for (const path of newest.ordered()) if (consume(path) === false) break;
  }
  byPath?.drain(consume, spec.mode === 'content' && (spec.before > 0 || spec.after > 0));
  // A glob or type filter that leaves no file to search is no match, not a failure (ripgrep warns
  // "No files were searched" and suggests --debug, which means nothing to the model).
  const nothingSearched = /No files were searched/i.test(exit.stderr);
  if (exit.exitCode === 2 && kept.length === 0 && seen === 0 && !nothingSearched) {
    const summary = ripgrepErrorSummary(exit.stderr);
    if (/unrecognized file type/i.test(summary)) {
      throw new EfferentError(
        ErrorCodes.validationFailed,
        `${summary}\nUse a ripgrep type name (js, ts, py, rust, go, java, md, …) or filter with the glob parameter instead (e.g. "*.vue").`,
      );
    }
    if (invalidPattern.test(summary)) {
      throw new EfferentError(
        ErrorCodes.validationFailed,
        `Invalid search pattern ${JSON.stringify(spec.pattern)}:\n${summary}\nFix the regular expression (ripgrep syntax; escape literal characters such as ( [ { with a backslash) and retry.`,
      );
    }
    throw new EfferentError(ErrorCodes.toolFailed, `The search failed: ${summary}`);
  }
  const output: GrepOutput = { mode: spec.mode, numFiles: 0, filenames: [] };
  if (spec.mode === 'content') {
    output.content = kept.join('\n');
    output.numLines = kept.length;
  } else {
    output.filenames = spec.mode === 'count' ? kept.map((line) => line.replace(/:\d+$/, '')) : kept;
    output.numFiles = output.filenames.length;
    if (spec.mode === 'count') {
      output.content = kept.join('\n');
      output.numMatches = kept.reduce((total, line) => total + Number(/:(\d+)$/.exec(line)?.[1] ?? 0), 0);
    }
  }
  if (truncated || cappedByMemory) output.appliedLimit = cappedByMemory ? kept.length : limit;
  if (offset > 0) output.appliedOffset = offset;
  if (exit.exitCode === 2 && exit.stderr.trim() && !nothingSearched)
    output.warnings = ripgrepErrorSummary(exit.stderr);
  if (filter?.hiddenFiles) output.hiddenByDenyRules = filter.hiddenFiles;
  return output;
}

function pagination(output: GrepOutput): string {
  if (output.appliedLimit === undefined) return '';
  const next = (output.appliedOffset ?? 0) + output.appliedLimit;
  return `\n\n[Showing results with pagination = limit: ${output.appliedLimit}${output.appliedOffset ? `, offset: ${output.appliedOffset}` : ''}. More results exist: pass offset: ${next} to see the next page, or narrow the search.]`;
}

/** Grep's tool_result text. */
export function describeGrepOutput(output: GrepOutput): string {
  const hidden = hiddenFilesNote(output.hiddenByDenyRules);
  const warnings = `${output.warnings ? `\n\n(Some paths could not be searched: ${output.warnings})` : ''}${hidden ? `\n\n${hidden}` : ''}`;
  switch (output.mode) {
    case 'content':
      return `${output.numLines ? output.content : 'No matches found'}${pagination(output)}${warnings}`;
    case 'count':
      if (!output.numFiles) return `No matches found${warnings}`;
      return `${output.content}\n\nFound ${output.numMatches} matching lines across ${output.numFiles} file(s)${output.appliedLimit === undefined ? '' : ' (this page only)'}.${pagination(output)}${warnings}`;
    case 'files_with_matches':
      if (!output.numFiles) return `No files found${warnings}`;
      return `Found ${output.numFiles} file(s)${output.appliedLimit === undefined ? '' : ' (limited)'}\n${output.filenames.join('\n')}${pagination(output)}${warnings}`;
  }
}

/** Content search with ripgrep (system, bundled, or a JS fallback), streamed and paged. */
export const GrepTool = buildTool<GrepInput, GrepOutput>({
  name: 'Grep',
  searchHint: 'search file contents with regular expressions',
  get inputSchema() {
    return inputSchema();
  },
  prompt: grepPrompt,
  description: (input) => `Search for ${input.pattern ?? ''}`,
  userFacingName: () => 'Search',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  maxResultSizeChars: 20_000,
  ...pathDeclarations('path', 'read'),
  toAutoClassifierInput: (input) => `${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
  async call(input, context) {
    const target = await resolveSearchTarget(input.path, context, true);
    const filter = createDenyFilter(context);
    const spec = buildSpec(input, target, context.run.cwd);
    // A single file the rules hide (reached, say, through a link) yields nothing at all.
    if (filter && spec.targetIsFile && filter.isHidden(spec.absoluteTarget)) {
      return { data: { mode: spec.mode, numFiles: 0, filenames: [], hiddenByDenyRules: 1 } };
    }
    return { data: await search(spec, input, context, filter) };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: describeGrepOutput(output),
  }),
  renderToolUse: (input) => `Grep(${input.pattern ?? ''})`,
});
