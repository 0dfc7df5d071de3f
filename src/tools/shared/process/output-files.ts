import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import type { ImageMediaType } from '../../../core/index.ts';

/**
 * These files live where a sandboxed command can write, so it could swap one for a symlink to a
 * host file, a device or a FIFO. They are only ever opened without following links, without
 * blocking, and used only when they are still regular files.
 */
const safeOpenFlags = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Opens a regular file (never through a link) for reading or writing, or undefined. */
export async function openRegularFile(path: string, write = false): Promise<FileHandle | undefined> {
  const flags = (write ? constants.O_WRONLY : constants.O_RDONLY) | safeOpenFlags;
  const handle = await open(path, flags).catch(() => undefined);
  if (!handle) return undefined;
  const info = await handle.stat().catch(() => undefined);
  if (info?.isFile()) return handle;
  await handle.close();
  return undefined;
}

/** Size of a regular file in bytes; 0 when it is missing, a link or anything else. */
export async function fileSize(path: string): Promise<number> {
  return lstat(path).then(
    (info) => (info.isFile() ? info.size : 0),
    () => 0,
  );
}

/** Cuts a regular file to `size` bytes (never through a link). */
export async function truncateRegularFile(path: string, size: number): Promise<void> {
  const handle = await openRegularFile(path, true);
  if (!handle) return;
  try {
    await handle.truncate(size);
  } finally {
    await handle.close();
  }
}

/** Bytes `[start, start + length)` of a file (fewer at its end); empty when the file is missing. */
export async function readBytes(path: string, start: number, length: number): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const handle = await openRegularFile(path);
  if (!handle) return Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What {@link readTextHead} returns: the text and whether the file holds more. */
export interface TextHead {
  text: string;
  /** Size of the whole file in bytes. */
  totalBytes: number;
  /** True when the file holds more than `text`. */
  truncated: boolean;
}

/** The first `maxChars` characters of a UTF-8 file, without reading the rest of a huge file. */
export async function readTextHead(path: string, maxChars: number): Promise<TextHead> {
  const totalBytes = await fileSize(path);
  // A character is at most 4 bytes in UTF-8, so this many bytes always hold maxChars characters.
  const wanted = Math.min(totalBytes, maxChars * 4);
  const decoded = (await readBytes(path, 0, wanted)).toString('utf8');
  const text = decoded.length > maxChars ? decoded.slice(0, maxChars) : decoded;
  const truncated = text.length < decoded.length || wanted < totalBytes;
  return { text, totalBytes, truncated };
}

/** The last `maxBytes` of a file as text (a partial first character is dropped). */
export async function readTextTail(path: string, maxBytes: number): Promise<string> {
  const size = await fileSize(path);
  const start = Math.max(0, size - maxBytes);
  const text = (await readBytes(path, start, size - start)).toString('utf8');
  return start > 0 ? text.replace(/^\uFFFD+/, '') : text;
}

/** The image type of a buffer by its magic bytes (PNG, JPEG, GIF, WebP), or undefined. */
export function detectImageType(head: Uint8Array): ImageMediaType | undefined {
  const startsWith = (bytes: number[], offset = 0) =>
    bytes.every((byte, index) => head[offset + index] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) {
    return 'image/gif';
  }
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}
