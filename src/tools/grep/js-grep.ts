import { type RegexWorker, RegexTimeoutError, startRegexWorker } from './regex-worker.ts';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import picomatch from 'picomatch';
import { vcsDirectories } from '../shared/ripgrep.ts';
import { looksBinary } from '../shared/text-file.ts';
import { walkFiles } from '../shared/walk-files.ts';
import { grepLimits } from './grep.prompt.ts';
import type { GrepSpec } from './grep-spec.ts';

/** File extensions of common ripgrep `--type` names, for the fallback. */
const typeExtensions: Record<string, readonly string[]> = {
  js: ['js', 'jsx', 'mjs', 'cjs', 'vue'],
  ts: ['ts', 'tsx', 'cts', 'mts'],
  py: ['py', 'pyi'],
  rust: ['rs'],
  go: ['go'],
  java: ['java', 'jsp'],
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'hpp', 'hh', 'hxx', 'h', 'inl'],
  cs: ['cs'],
  rb: ['rb', 'gemspec'],
  php: ['php'],
  swift: ['swift'],
  kotlin: ['kt', 'kts'],
  sh: ['sh', 'bash', 'zsh'],
  md: ['md', 'markdown', 'mdx'],
  markdown: ['md', 'markdown', 'mdx'],
  json: ['json', 'jsonl'],
  yaml: ['yaml', 'yml'],
  toml: ['toml'],
  html: ['html', 'htm'],
  css: ['css', 'scss', 'less'],
  sql: ['sql'],
  txt: ['txt'],
};

/** How the fallback run ended, in ripgrep's terms. */
export interface JsGrepExit {
  exitCode: 0 | 1 | 2 | null;
  stderr: string;
  stoppedEarly: boolean;
}

/**
 * Translates the ripgrep regex features models use most into a JS RegExp: leading inline flags such as
 * `(?i)` and `\A`/`\z`. Throws SyntaxError (as `new RegExp` does) for what JS cannot parse.
 */
export function toJsRegExp(spec: Pick<GrepSpec, 'pattern' | 'caseInsensitive' | 'multiline'>): RegExp {
  let source = spec.pattern;
  let flags = 'gu';
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1]?.includes('i')) flags += 'i';
    if (inline[1]?.includes('s')) flags += 's';
    if (inline[1]?.includes('m')) flags += 'm';
  }
  if (spec.caseInsensitive && !flags.includes('i')) flags += 'i';
  if (spec.multiline && !flags.includes('s')) flags += 's';
  source = source.replace(/\\A/g, '^').replace(/\\z/g, '$');
  try {
    return new RegExp(source, flags);
  } catch {
    // Without the `u` flag JS accepts more escapes ripgrep also accepts (e.g. `\-` outside classes).
    return new RegExp(source, flags.replace('u', ''));
  }
}

function fileFilter(spec: GrepSpec): ((path: string) => boolean) | string {
  const includes = spec.globs.filter((glob) => !glob.startsWith('!'));
  const excludes = spec.globs.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1));
  const matcher = (globs: string[]) =>
    globs.length === 0
      ? undefined
      : globs.map((glob) => picomatch(glob, { dot: true, basename: !glob.includes('/') }));
  const include = matcher(includes);
  const exclude = matcher(excludes);
  let extensions: readonly string[] | undefined;
  if (spec.type) {
    extensions = typeExtensions[spec.type];
    if (!extensions)
      return `unrecognized file type: ${spec.type} (the built-in search knows ${Object.keys(typeExtensions).join(', ')})`;
  }
  return (path) => {
    if (include && !include.some((test) => test(path))) return false;
    if (exclude?.some((test) => test(path))) return false;
    if (extensions) {
      const dot = path.lastIndexOf('.');
      if (dot === -1 || !extensions.includes(path.slice(dot + 1).toLowerCase())) return false;
    }
    return true;
  };
}

function clip(line: string): string {
  return line.length > grepLimits.maxColumns
    ? `${line.slice(0, grepLimits.maxColumns)} [... omitted end of long line]`
    : line;
}

/**
 * The pure-JS stand-in for ripgrep, used when no binary is available: the same walk rules (hidden files,
 * ignore files, VCS directories skipped, binaries skipped), JS regular expressions, and output lines in
 * ripgrep's format, handed to `onLine` one at a time so callers page and stop exactly as with ripgrep.
 */
export async function jsGrep(
  spec: GrepSpec,
  onLine: (line: string) => boolean | undefined,
  signal?: AbortSignal,
  deadlineMs = jsGrepDeadlineMs,
): Promise<JsGrepExit> {
  let regex: RegExp;
  try {
    regex = toJsRegExp(spec);
  } catch (error) {
    return {
      exitCode: 2,
      stderr: `regex parse error:\n    ${spec.pattern}\nerror: ${(error as Error).message}`,
      stoppedEarly: false,
    };
  }
  const filter = fileFilter(spec);
  if (typeof filter === 'string') return { exitCode: 2, stderr: filter, stoppedEarly: false };

  let files: string[] = [];
  if (spec.targetIsFile) files = [''];
  else {
    for await (const path of walkFiles({
      root: spec.absoluteTarget,
      respectIgnoreFiles: true,
      excludeDirectories: vcsDirectories,
      ...(signal ? { signal } : {}),
    })) {
      if (filter(path)) files.push(path);
    }
  }
  const worker = startRegexWorker(regex, deadlineMs, signal);
  try {
    return await searchFiles(spec, files, worker, onLine, signal, deadlineMs);
  } finally {
    await worker.dispose();
  }
}

/** How long the JS fallback may spend matching one file before the search is abandoned. */
export const jsGrepDeadlineMs = 10_000;

async function searchFiles(
  spec: GrepSpec,
  files: string[],
  worker: RegexWorker,
  onLine: (line: string) => boolean | undefined,
  signal: AbortSignal | undefined,
  deadlineMs: number,
): Promise<JsGrepExit> {
  let matchedAny = false;
  const emit = (line: string) => onLine(line) !== false;
  for (const relative of files) {
    signal?.throwIfAborted();
    const absolute = spec.targetIsFile ? spec.absoluteTarget : join(spec.absoluteTarget, relative);
    const display = spec.targetIsFile
      ? (spec.searchArg ?? basename(absolute))
      : spec.searchArg === undefined
        ? relative
        : join(spec.searchArg, relative);
    const bytes = await readFile(absolute).catch(() => undefined);
    if (!bytes || looksBinary(bytes)) continue;
    const text = bytes.toString('utf8');
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let matches: Map<number, string[]>;
    try {
      matches = await worker.match(text, spec.multiline);
    } catch (error) {
      if (!(error instanceof RegexTimeoutError)) throw error;
      return {
        exitCode: 2,
        stderr: `error: the pattern took longer than ${deadlineMs / 1000} s to match ${display} (catastrophic backtracking in the built-in matcher). Simplify the pattern (avoid nested quantifiers such as (a+)+), or install ripgrep.`,
        stoppedEarly: false,
      };
    }
    if (matches.size === 0) continue;
    const afterEarlierFile = matchedAny;
    matchedAny = true;
    const prefix = spec.targetIsFile && spec.mode === 'content' ? '' : display;
    if (spec.mode === 'files_with_matches') {
      if (!emit(display)) return { exitCode: null, stderr: '', stoppedEarly: true };
      continue;
    }
    if (spec.mode === 'count') {
      if (!emit(`${display}${spec.nullAfterPath ? '\0' : ':'}${matches.size}`))
        return { exitCode: null, stderr: '', stoppedEarly: true };
      continue;
    }
    if (!emitContent(spec, lines, matches, prefix, emit, afterEarlierFile))
      return { exitCode: null, stderr: '', stoppedEarly: true };
  }
  return { exitCode: matchedAny ? 0 : 1, stderr: '', stoppedEarly: false };
}

function emitContent(
  spec: GrepSpec,
  lines: string[],
  matches: Map<number, string[]>,
  prefix: string,
  emit: (line: string) => boolean,
  afterEarlierFile: boolean,
): boolean {
  const shown = new Set<number>();
  for (const index of matches.keys()) {
    for (
      let line = Math.max(0, index - spec.before);
      line <= Math.min(lines.length - 1, index + spec.after);
      line++
    )
      shown.add(line);
  }
  const withContext = spec.before > 0 || spec.after > 0;
  // ripgrep separates context groups with `--`, the last group of one file from the next file's too.
  if (withContext && afterEarlierFile && !emit('--')) return false;
  let previous = -2;
  for (const index of [...shown].sort((a, b) => a - b)) {
    if (previous !== -2 && index > previous + 1 && withContext) {
      if (!emit('--')) return false;
    }
    previous = index;
    const isMatch = matches.has(index);
    const separator = isMatch ? ':' : '-';
    const afterPath = spec.nullAfterPath ? '\0' : separator;
    const head = `${prefix ? `${prefix}${afterPath}` : ''}${spec.lineNumbers ? `${index + 1}${separator}` : ''}`;
    const raw = (lines[index] ?? '').replace(/\r$/, '');
    if (isMatch && spec.onlyMatching) {
      for (const part of matches.get(index) ?? [])
        if (part !== '' && !emit(`${head}${clip(part)}`)) return false;
    } else if (!emit(`${head}${clip(raw)}`)) return false;
  }
  return true;
}
