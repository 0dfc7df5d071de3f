import { stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { createDenyFilter, type DenyFilter, hiddenFilesNote } from '../shared/deny-filter.ts';
import { displayPath } from '../shared/paths.ts';
import { locateRipgrepForRun, runRipgrep, ripgrepErrorSummary, vcsDirectories } from '../shared/ripgrep.ts';
import { resolveSearchTarget } from '../shared/search-path.ts';
import { walkFiles } from '../shared/walk-files.ts';
import { globPrompt, maxGlobResults } from './glob.prompt.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';
import { globSearchRoot } from './glob-root.ts';

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

function respectsIgnoreFiles(options: GlobOptions, context: ToolUseContext): boolean {
  if (options.respectIgnoreFiles !== undefined) return options.respectIgnoreFiles;
  const flag = (
    context.run.env['EFFERENT_GLOB_NO_IGNORE'] ?? context.run.env['CLAUDE_CODE_GLOB_NO_IGNORE']
  )?.toLowerCase();
  return !(flag === 'true' || flag === '1');
}

function excludedDirectories(options: GlobOptions, pattern: string, base: string): string[] {
  const defaults = options.excludeDirectories ?? [...vcsDirectories, 'node_modules'];
  // Asking for node_modules explicitly must not return nothing.
  const wantsNodeModules = pattern.includes('node_modules') || base.split(sep).includes('node_modules');
  return defaults.filter((name) => !(wantsNodeModules && name === 'node_modules'));
}

async function globWithRipgrep(
  rgPath: string,
  root: string,
  pattern: string,
  excluded: string[],
  respect: boolean,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
) {
  const args = ['--files', '--hidden', '--no-require-git', '--sortr', 'modified', '--glob', pattern];
  for (const name of excluded) args.push('--glob', `!${name}`);
  if (!respect) args.push('--no-ignore');
  const files: string[] = [];
  const exit = await runRipgrep(
    rgPath,
    args,
    { cwd: root, env: context.run.env, signal: context.run.abortController.signal },
    (line) => {
      // Hidden files never count towards the cap, so the model still gets a full page.
      if (filter?.isHidden(join(root, line))) return true;
      files.push(line);
      return files.length <= maxGlobResults; // one extra tells us there are more
    },
  );
  if (exit.exitCode === 2 && files.length === 0 && /error/i.test(exit.stderr)) {
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `Invalid glob pattern "${pattern}": ${ripgrepErrorSummary(exit.stderr)}`,
    );
  }
  return files;
}

async function globWithJs(
  root: string,
  pattern: string,
  excluded: string[],
  respect: boolean,
  context: ToolUseContext,
  filter: DenyFilter | undefined,
) {
  const matches = picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
  const found: Array<{ path: string; mtimeMs: number }> = [];
  for await (const path of walkFiles({
    root,
    respectIgnoreFiles: respect,
    excludeDirectories: excluded,
    signal: context.run.abortController.signal,
  })) {
    if (!matches(path) || filter?.isHidden(join(root, path))) continue;
    const stats = await stat(join(root, path)).catch(() => undefined);
    found.push({ path, mtimeMs: stats?.mtimeMs ?? 0 });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
  return found.slice(0, maxGlobResults + 1).map((entry) => entry.path);
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
    permissionTarget: (input, context) => ({
      kind: 'path',
      path: globSearchRoot(input, context).root,
      access: 'read',
    }),
    toAutoClassifierInput: (input) => `${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
    async call(input, context) {
      const started = performance.now();
      const { root, pattern } = globSearchRoot(input, context);
      const target = await resolveSearchTarget(root, context, false);
      const excluded = excludedDirectories(options, pattern, target.absolutePath);
      const respect = respectsIgnoreFiles(options, context);
      const rg = await locateRipgrepForRun(context);
      const filter = createDenyFilter(context);
      const found =
        rg.source === 'js'
          ? await globWithJs(target.absolutePath, pattern, excluded, respect, context, filter)
          : await globWithRipgrep(rg.path, target.absolutePath, pattern, excluded, respect, context, filter);
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
