/**
 * The first `maxBytes` bytes of `text` as whole characters, cut at the last line break when that keeps
 * at least half of the allowance (so the model sees whole lines).
 */
export function previewText(text: string, maxBytes: number): { preview: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { preview: text, truncated: false };
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  let preview = bytes.subarray(0, end).toString('utf8');
  const lastNewline = preview.lastIndexOf('\n');
  if (lastNewline >= preview.length / 2) preview = preview.slice(0, lastNewline);
  return { preview, truncated: true };
}

/** A size in human units: `812 B`, `48.8 KB`, `1.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
