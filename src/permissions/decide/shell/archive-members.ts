import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { protectedPathReason } from '../../paths/protected-paths.ts';
import type { Workspace } from '../workspace.ts';
import { expandHome } from './command-paths.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';

/**
 * Archives extracted without naming their members: `tar -xf x.tar` (or `x.tar.gz`), `unzip x.zip`,
 * `bsdtar -xf`. Under `Bash(tar *)` an archive holding `.claude/settings.json`, `.envrc` or
 * `.husky/pre-commit` wrote it, and no word of the command named it. The member names are read at
 * decision time (a plain or gzip tar, a zip's central directory), within bounds; an archive that
 * cannot be listed is left to what else judges the command (the sandbox guard moves what a
 * sandboxed extraction leaves).
 */

/** The most of an archive read (or, for gzip, inflated) at decision time. */
const archiveReadLimit = 64 * 1024 * 1024;

export interface ArchiveWrite {
  path: string;
  reason: string;
}

/** A protected path an extraction would write, or undefined (none, not an extraction, or not listable). */
export function archiveWrites(
  subcommand: AnalyzedSubcommandLike,
  workspace: Workspace,
): ArchiveWrite | undefined {
  const extraction = extractionOf(subcommand.argv);
  if (!extraction || subcommand.cwd === null) return undefined;
  const cwd = subcommand.cwd;
  const resolve = (word: string) => posix.resolve(cwd, expandHome(word, workspace.home, true) ?? word);
  const archive = resolve(extraction.archive);
  const names = extraction.kind === 'zip' ? zipMembers(archive) : tarMembers(archive);
  if (names === undefined) return undefined;
  const base = extraction.directory === undefined ? cwd : resolve(extraction.directory);
  for (const name of names) {
    const path = posix.resolve(base, name.replace(/^\/+/, ''));
    const reason = protectedPathReason(path);
    if (reason) return { path, reason };
  }
  return undefined;
}

interface Extraction {
  kind: 'tar' | 'zip';
  archive: string;
  directory?: string;
}

/** `tar -xf A [-C D]`, `tar xf A`, `tar --extract --file=A`, `bsdtar -xf A`, `unzip A [-d D]`. */
function extractionOf(argv: readonly string[]): Extraction | undefined {
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  if (name === 'unzip') {
    let archive: string | undefined;
    let directory: string | undefined;
    for (let index = 1; index < argv.length; index++) {
      const word = argv[index] ?? '';
      if (word === '-d') directory = argv[++index];
      else if (word.startsWith('-d') && word.length > 2) directory = word.slice(2);
      else if (!word.startsWith('-') && archive === undefined) archive = word;
      if (word === '-l' || word === '-t' || word === '-v' || word === '-Z') return undefined;
    }
    return archive === undefined ? undefined : { kind: 'zip', archive, ...(directory ? { directory } : {}) };
  }
  if (name !== 'tar' && name !== 'bsdtar' && name !== 'gtar') return undefined;
  let extract = false;
  let archive: string | undefined;
  let directory: string | undefined;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--extract' || word === '--get') extract = true;
    else if (word.startsWith('--file=')) archive = word.slice(7);
    else if (word === '--file') archive = argv[++index];
    else if (word.startsWith('--directory=')) directory = word.slice(12);
    else if (word === '--directory' || word === '-C') directory = argv[++index];
    else if (index === 1 && !word.startsWith('-') && /^[A-Za-z]+$/.test(word)) {
      // Old-style letters (`tar xzf A`): values follow in letter order.
      extract ||= word.includes('x');
      if (word.includes('f')) archive = argv[index + 1];
    } else if (/^-[A-Za-z]+$/.test(word)) {
      extract ||= word.includes('x');
      if (word.includes('f')) archive = word.endsWith('f') ? argv[++index] : undefined;
    }
  }
  return extract && archive !== undefined && archive !== '-'
    ? { kind: 'tar', archive, ...(directory ? { directory } : {}) }
    : undefined;
}

function readBounded(path: string): Buffer | undefined {
  try {
    const info = statSync(path);
    if (!info.isFile() || info.size > archiveReadLimit) return undefined;
    const buffer = Buffer.alloc(info.size);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buffer, 0, info.size, 0);
    } finally {
      closeSync(fd);
    }
    return buffer;
  } catch {
    return undefined;
  }
}

/** Member names of a plain or gzip tar; undefined when it is neither or cannot be read. */
export function tarMembers(path: string): string[] | undefined {
  let data = readBounded(path);
  if (data === undefined) return undefined;
  if (data[0] === 0x1f && data[1] === 0x8b) {
    try {
      data = gunzipSync(data, { maxOutputLength: archiveReadLimit });
    } catch {
      return undefined;
    }
  }
  if (data.length < 512 || data.toString('latin1', 257, 262) !== 'ustar') return undefined;
  const names: string[] = [];
  let longName: string | undefined;
  for (let at = 0; at + 512 <= data.length; ) {
    const header = data.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) => {
      const raw = header.toString('utf8', start, start + length);
      const end = raw.indexOf('\0');
      return end === -1 ? raw : raw.slice(0, end);
    };
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 48);
    const prefix = field(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    const body = at + 512;
    const next = body + Math.ceil((Number.isNaN(size) ? 0 : size) / 512) * 512;
    if (type === 'L') longName = data.toString('utf8', body, body + size).replace(/\0+$/, '');
    else if (type !== 'x' && type !== 'g') names.push(name);
    if (next <= at) break;
    at = next;
  }
  return names;
}

/** Member names of a zip from its central directory; undefined when it is not one. */
export function zipMembers(path: string): string[] | undefined {
  const data = readBounded(path);
  if (data === undefined || data.length < 22) return undefined;
  let end = -1;
  for (let at = data.length - 22; at >= Math.max(0, data.length - 65_557); at--)
    if (data.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  if (end === -1) return undefined;
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let index = 0; index < count && at + 46 <= data.length; index++) {
    if (data.readUInt32LE(at) !== 0x02014b50) return undefined;
    const nameLength = data.readUInt16LE(at + 28);
    const extra = data.readUInt16LE(at + 30);
    const comment = data.readUInt16LE(at + 32);
    names.push(data.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}
