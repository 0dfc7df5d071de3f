import { readFile, stat } from 'node:fs/promises';

/** How a text file's bytes map to characters. `latin1` is the lossless fallback for invalid UTF-8. */
export type TextEncodingName = 'utf8' | 'utf16le' | 'latin1';

/** Line ending style; `mixed` files are edited byte for byte, without conversion. */
export type LineEndingStyle = 'LF' | 'CRLF' | 'mixed';

/** Everything needed to write edited text back exactly as the file stored it. */
export interface TextFormat {
  encoding: TextEncodingName;
  bom: boolean;
  lineEnding: LineEndingStyle;
}

/** A decoded text file. `text` has the BOM removed and, for pure CRLF files, LF line endings. */
export interface TextFileContent {
  text: string;
  format: TextFormat;
  mtimeMs: number;
  size: number;
}

const utf8Bom = [0xef, 0xbb, 0xbf] as const;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The line ending style of some text: LF when it has no CRLF, CRLF when every newline is one. */
export function detectLineEnding(text: string): LineEndingStyle {
  const crlf = text.split('\r\n').length - 1;
  if (crlf === 0) return 'LF';
  // `\r\r\n` would decode to `\r\n` and be written back as one CRLF, losing a byte: edit such files as is.
  if (text.includes('\r\r\n')) return 'mixed';
  const lf = text.split('\n').length - 1;
  return crlf === lf ? 'CRLF' : 'mixed';
}

/** Decodes file bytes, detecting BOM, encoding and line endings. */
export function decodeText(bytes: Uint8Array): { text: string; format: TextFormat } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let encoding: TextEncodingName = 'utf8';
  let bom = false;
  let raw: string;
  if (buffer[0] === 0xff && buffer[1] === 0xfe) {
    encoding = 'utf16le';
    bom = true;
    raw = buffer.subarray(2).toString('utf16le');
  } else {
    bom = buffer[0] === utf8Bom[0] && buffer[1] === utf8Bom[1] && buffer[2] === utf8Bom[2];
    const body = bom ? buffer.subarray(3) : buffer;
    try {
      raw = strictUtf8.decode(body);
    } catch {
      // Not UTF-8: latin1 maps every byte to one character, so writing back changes nothing we did not edit.
      encoding = 'latin1';
      raw = body.toString('latin1');
    }
  }
  const lineEnding = detectLineEnding(raw);
  const text = lineEnding === 'CRLF' ? raw.replaceAll('\r\n', '\n') : raw;
  return { text, format: { encoding, bom, lineEnding } };
}

/** Encodes text for a file of the given format (restoring CRLF and the BOM). */
export function encodeText(text: string, format: TextFormat): Buffer {
  const body = format.lineEnding === 'CRLF' ? text.replace(/\r?\n/g, '\r\n') : text;
  if (format.encoding === 'latin1' && /[^\u0000-\u00ff]/.test(body)) {
    throw new RangeError('The file is Latin-1 encoded and the new text has characters Latin-1 cannot hold.');
  }
  const encoded = Buffer.from(body, format.encoding);
  if (!format.bom) return encoded;
  const bomBytes = format.encoding === 'utf16le' ? Buffer.from([0xff, 0xfe]) : Buffer.from(utf8Bom);
  return Buffer.concat([bomBytes, encoded]);
}

/** The format of a new file: UTF-8, no BOM, LF. */
export const defaultTextFormat: TextFormat = { encoding: 'utf8', bom: false, lineEnding: 'LF' };

/** True when the bytes start with a UTF-8 or UTF-16LE byte order mark: text, whatever magic-number sniffing says. */
export function hasTextBom(bytes: Uint8Array): boolean {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return true;
  return bytes[0] === utf8Bom[0] && bytes[1] === utf8Bom[1] && bytes[2] === utf8Bom[2];
}

/** True when the bytes look binary: a NUL byte in the first 8 KB (UTF-16 with a BOM is text). */
export function looksBinary(bytes: Uint8Array): boolean {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return false;
  const sample = bytes.subarray(0, 8192);
  return sample.includes(0);
}

/** Reads and decodes a whole text file with its mtime. */
export async function readTextFile(path: string, signal?: AbortSignal): Promise<TextFileContent> {
  const stats = await stat(path);
  const bytes = signal ? await readFile(path, { signal }) : await readFile(path);
  return { ...decodeText(bytes), mtimeMs: stats.mtimeMs, size: stats.size };
}
