import type { FileReadRecord, ToolUseContext } from '../../core/index.ts';

/** Whether the model's view of a file is current enough to change it. */
export type FreshnessResult =
  | { ok: true; record: FileReadRecord }
  | { ok: false; reason: 'not-read' | 'partial' | 'stale'; message: string };

/**
 * Checks the read record of `absolutePath` against the file as it is now. A newer mtime means stale,
 * except after a full read whose content still equals the file (timestamps alone change on some file
 * systems and editors that touch files); partial views never qualify for an edit.
 */
export function checkFreshness(
  context: Pick<ToolUseContext, 'run'>,
  absolutePath: string,
  current: { text: string; mtimeMs: number },
): FreshnessResult {
  const record = context.run.readFileState.get(absolutePath);
  if (!record) {
    return {
      ok: false,
      reason: 'not-read',
      message: `File has not been read yet. Read ${absolutePath} first, then retry.`,
    };
  }
  if (record.isPartialView) {
    return {
      ok: false,
      reason: 'partial',
      message: `Only part of ${absolutePath} was shown (it was cut to fit). Read it with offset and limit around the lines you want to change, then retry.`,
    };
  }
  if (current.mtimeMs > record.timestamp) {
    const fullRead = record.offset === undefined && record.limit === undefined;
    if (!(fullRead && record.content === current.text)) {
      return {
        ok: false,
        reason: 'stale',
        message: `File has been modified since it was read (by the user, a linter or another process). Read ${absolutePath} again, then retry.`,
      };
    }
  }
  return { ok: true, record };
}

/** Records that the model now knows the whole file as `text` (after a full read or a write). */
export function recordFullView(
  context: Pick<ToolUseContext, 'run'>,
  absolutePath: string,
  text: string,
  mtimeMs: number,
): void {
  context.run.readFileState.set(absolutePath, { content: text, timestamp: mtimeMs });
}
