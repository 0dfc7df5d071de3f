import { statSync } from 'node:fs';
import { readOwnFileSync } from '../../core/index.ts';

/** The largest git configuration file inspected; a larger one cannot be inspected, so the call asks. */
const maxConfigFileBytes = 1024 * 1024;
import { dirname, isAbsolute, resolve } from 'node:path';

/**
 * Git configuration files read the way git reads them, without running git: the same syntax
 * (sections, `"subsections"`, quoted values, escapes, continuation lines, comments) and the same
 * include rules (`include.path` and every `includeIf.*.path`, relative to the including file, `~/`
 * from home, missing files ignored). Conditions of `includeIf` are not evaluated: every included
 * file is read, which can only find more.
 */

/** One `key = value` line. `section` and `name` are lower-case, `subsection` keeps its case. */
export interface ConfigEntry {
  section: string;
  subsection: string | undefined;
  name: string;
  /** null for a bare key (`[core] bare`), which git reads as true. */
  value: string | null;
  file: string;
  line: number;
}

/** A file that parsed, or why it could not be read. */
export type ParsedConfig = { ok: true; entries: ConfigEntry[] } | { ok: false; reason: string };

/** Files larger than this are not inspected (and so make git ask). */
const maxConfigBytes = 1024 * 1024;
/** git's own limit on nested includes. */
const maxIncludeDepth = 10;

interface CacheEntry {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
  parsed: ParsedConfig;
}

/** Parsed files by path; an entry is reused only while the file's mtime, ctime, size and inode match. */
const cache = new Map<string, CacheEntry>();

const fail = (file: string, line: number, what: string): ParsedConfig => ({
  ok: false,
  reason: `${file} cannot be parsed (line ${line}: ${what})`,
});

/** Parses the text of one configuration file. Anything git would reject is reported, never guessed. */
export function parseGitConfig(text: string, file: string): ParsedConfig {
  const entries: ConfigEntry[] = [];
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let section: string | undefined;
  let subsection: string | undefined;
  const length = text.length;
  const isSpace = (char: string | undefined) => char === ' ' || char === '\t' || char === '\r';
  const skipComment = () => {
    while (index < length && text[index] !== '\n') index++;
  };
  while (index < length) {
    const char = text[index] as string;
    if (char === '\n') {
      line++;
      index++;
      continue;
    }
    if (isSpace(char)) {
      index++;
      continue;
    }
    if (char === '#' || char === ';') {
      skipComment();
      continue;
    }
    if (char === '[') {
      index++;
      let name = '';
      while (index < length && /[A-Za-z0-9.-]/.test(text[index] as string)) name += text[index++];
      if (name === '') return fail(file, line, 'a section header without a name');
      let sub: string | undefined;
      if (isSpace(text[index]) || text[index] === '"') {
        while (isSpace(text[index])) index++;
        if (text[index] !== '"') return fail(file, line, 'a malformed section header');
        index++;
        sub = '';
        while (index < length && text[index] !== '"') {
          if (text[index] === '\n') return fail(file, line, 'a newline in a subsection name');
          if (text[index] === '\\') index++;
          if (index >= length) break;
          sub += text[index++];
        }
        if (text[index] !== '"') return fail(file, line, 'an unterminated subsection name');
        index++;
      }
      if (text[index] !== ']') return fail(file, line, 'a malformed section header');
      index++;
      if (sub === undefined) {
        const dot = name.indexOf('.');
        // `[section.sub]` (the old syntax) names a lower-cased subsection.
        section = (dot === -1 ? name : name.slice(0, dot)).toLowerCase();
        subsection = dot === -1 ? undefined : name.slice(dot + 1).toLowerCase();
      } else {
        if (name.includes('.')) return fail(file, line, 'a dotted section name with a subsection');
        section = name.toLowerCase();
        subsection = sub;
      }
      continue;
    }
    if (!/[A-Za-z]/.test(char)) return fail(file, line, 'an unexpected character');
    if (section === undefined) return fail(file, line, 'a key before any section');
    let key = '';
    while (index < length && /[A-Za-z0-9-]/.test(text[index] as string)) key += text[index++];
    while (isSpace(text[index])) index++;
    const entryLine = line;
    if (index >= length || text[index] === '\n' || text[index] === '#' || text[index] === ';') {
      entries.push({ section, subsection, name: key.toLowerCase(), value: null, file, line: entryLine });
      continue;
    }
    if (text[index] !== '=') return fail(file, line, 'a key without "="');
    index++;
    let value = '';
    let pendingSpace = '';
    let quoted = false;
    let started = false;
    for (;;) {
      if (index >= length) {
        if (quoted) return fail(file, line, 'an unterminated quoted value');
        break;
      }
      const next = text[index] as string;
      if (next === '\n') {
        if (quoted) return fail(file, line, 'an unterminated quoted value');
        break;
      }
      if (!quoted && (next === '#' || next === ';')) {
        skipComment();
        break;
      }
      if (!quoted && isSpace(next)) {
        if (started) pendingSpace += next === '\r' ? '' : next;
        index++;
        continue;
      }
      value += pendingSpace;
      pendingSpace = '';
      started = true;
      if (next === '"') {
        quoted = !quoted;
        index++;
        continue;
      }
      if (next === '\\') {
        const escaped = text[index + 1];
        index += 2;
        if (escaped === '\n') {
          line++;
          continue;
        }
        if (escaped === '\r' && text[index] === '\n') {
          index++;
          line++;
          continue;
        }
        const mapped = escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped === 'b' ? '\b' : escaped;
        if (mapped !== '\n' && mapped !== '\t' && mapped !== '\b' && mapped !== '\\' && mapped !== '"')
          return fail(file, line, 'an unknown escape in a value');
        value += mapped;
        continue;
      }
      value += next;
      index++;
    }
    entries.push({ section, subsection, name: key.toLowerCase(), value, file, line: entryLine });
  }
  return { ok: true, entries };
}

/** Reads and parses one file through the cache; `missing` when it does not exist (git skips those). */
export function readConfigFile(path: string): ParsedConfig | 'missing' {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(path);
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    )
      return 'missing';
    return {
      ok: false,
      reason: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  if (!info.isFile()) return { ok: false, reason: `${path} is not a regular file` };
  if (info.size > maxConfigBytes) return { ok: false, reason: `${path} is too large to inspect` };
  const cached = cache.get(path);
  if (
    cached &&
    cached.mtimeMs === info.mtimeMs &&
    cached.ctimeMs === info.ctimeMs &&
    cached.size === info.size &&
    cached.ino === info.ino
  )
    return cached.parsed;
  // Bounded, regular files only: an included path may be `/dev/zero` or a FIFO.
  const read = readOwnFileSync(path, { maxBytes: maxConfigFileBytes });
  const parsed: ParsedConfig =
    read.kind === 'read'
      ? parseGitConfig(read.text, path)
      : { ok: false, reason: read.kind === 'missing' ? `${path} cannot be read (ENOENT)` : read.reason };
  cache.set(path, { mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, size: info.size, ino: info.ino, parsed });
  return parsed;
}

/** Whether an entry is an include directive (`include.path`, `includeIf.<condition>.path`). */
export function isIncludeEntry(entry: ConfigEntry): boolean {
  return entry.name === 'path' && (entry.section === 'include' || entry.section === 'includeif');
}

/**
 * Every entry of a file and of the files it includes, in order, or the first reason one of them
 * cannot be inspected. `home` expands `~/` in include paths.
 */
export function readConfigWithIncludes(path: string, home: string, depth = 0): ParsedConfig | 'missing' {
  const parsed = readConfigFile(path);
  if (parsed === 'missing' || !parsed.ok) return parsed;
  if (!parsed.entries.some(isIncludeEntry)) return parsed;
  const entries: ConfigEntry[] = [];
  for (const entry of parsed.entries) {
    entries.push(entry);
    if (!isIncludeEntry(entry)) continue;
    if (depth >= maxIncludeDepth)
      return { ok: false, reason: `${path} nests includes deeper than git allows (${maxIncludeDepth})` };
    const target = includeTarget(entry, home);
    if (target === undefined)
      return {
        ok: false,
        reason: `${entry.file} includes ${JSON.stringify(entry.value)}, a path this engine cannot resolve`,
      };
    const included = readConfigWithIncludes(target, home, depth + 1);
    if (included === 'missing') continue;
    if (!included.ok) return included;
    entries.push(...included.entries);
  }
  return { ok: true, entries };
}

/** Where an include points, or undefined when git would expand something not modelled here. */
function includeTarget(entry: ConfigEntry, home: string): string | undefined {
  const value = entry.value;
  if (value === null || value === '') return undefined;
  if (value === '~' || value.startsWith('~/')) return resolve(home, value.slice(2));
  // `%(prefix)/` and the newer `:(optional)` form are expanded by git in ways not modelled here.
  if (value.startsWith('~') || value.startsWith('%(') || value.startsWith(':(')) return undefined;
  return isAbsolute(value) ? resolve(value) : resolve(dirname(entry.file), value);
}

/** Forgets every parsed file (tests and benchmarks). */
export function clearConfigCache(): void {
  cache.clear();
}
