import { readFile, stat } from 'node:fs/promises';
import { EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { writeFileAtomic } from '../shared/atomic-write.ts';
import { diffLines, formatHunks } from '../shared/diff.ts';
import { canonicalPath, displayPath, resolveToolPath } from '../shared/paths.ts';
import { recordFullView } from '../shared/read-state.ts';
import { parseSedEditArgv, type SedEditCommand, simulateSedEdit } from './sed-edit.ts';
import type { PreparedShellCommand } from '../../shell/index.ts';
import { parseCommandLine, soleLiteralCommand } from './shell-analysis.ts';

/** The approved result of a sed edit, carried in the input's internal `_simulatedSedEdit` field. */
export interface SimulatedSedEdit {
  filePath: string;
  newContent: string;
}

/** Files larger than this are not previewed; sed runs on them as usual. */
const maxPreviewBytes = 10 * 1024 * 1024;

/** A computed sed edit: the file, its current text and the text sed would leave. */
export interface SedEditPreview {
  filePath: string;
  oldContent: string;
  newContent: string;
  diff: string;
}

/** The sed-i command in `command`, when it is exactly one we can simulate. */
async function sedCommandOf(
  command: string,
  prepared: PreparedShellCommand | undefined,
): Promise<SedEditCommand | undefined> {
  const sole = soleLiteralCommand(await parseCommandLine(command, prepared));
  return sole ? parseSedEditArgv(sole.argv) : undefined;
}

/** Reads a file as UTF-8 text, or undefined when it is missing, huge, binary or not valid UTF-8. */
async function readEditableText(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > maxPreviewBytes) return undefined;
  const bytes = await readFile(path);
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * What `command` would do to its file, computed without touching it; undefined when the command is
 * not a single `sed -i` edit of the supported kind (the command then runs as any other).
 */
export async function previewSedEdit(
  command: string,
  context: Pick<ToolUseContext, 'run'>,
  prepared?: PreparedShellCommand,
): Promise<SedEditPreview | undefined> {
  const sed = await sedCommandOf(command, prepared);
  if (!sed) return undefined;
  const filePath = canonicalPath(resolveToolPath(sed.file, context));
  const oldContent = await readEditableText(filePath);
  if (oldContent === undefined) return undefined;
  const newContent = simulateSedEdit(oldContent, sed);
  const shown = displayPath(filePath, context.run.cwd);
  const hunks = formatHunks(diffLines(oldContent, newContent));
  const diff = hunks === '' ? '' : `--- ${shown}\n+++ ${shown}\n${hunks}`;
  return { filePath, oldContent, newContent, diff };
}

/**
 * Writes an approved sed edit. The command is simulated again on the file as it is now; if that no
 * longer gives the approved text, the file changed after approval and nothing is written.
 */
export async function applySimulatedSedEdit(
  command: string,
  edit: SimulatedSedEdit,
  context: Pick<ToolUseContext, 'run'>,
  prepared?: PreparedShellCommand,
): Promise<void> {
  const sed = await sedCommandOf(command, prepared);
  const target = sed ? canonicalPath(resolveToolPath(sed.file, context)) : undefined;
  if (!sed || target !== edit.filePath) {
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `The approved sed edit does not belong to this command (it targets ${edit.filePath}). Nothing was written; run the sed command again.`,
    );
  }
  // The approved path must still be the file itself: a link swapped in since would redirect the write.
  if (canonicalPath(edit.filePath) !== edit.filePath) {
    throw new EfferentError(
      ErrorCodes.fileStale,
      `${edit.filePath} now resolves somewhere else (a symlink appeared). Nothing was written. Run the command again to get a fresh preview.`,
    );
  }
  const current = await readEditableText(edit.filePath);
  if (current === undefined || simulateSedEdit(current, sed) !== edit.newContent) {
    throw new EfferentError(
      ErrorCodes.fileStale,
      `${edit.filePath} changed after the sed edit was approved, so the approved result no longer applies. Nothing was written. Run the command again to get a fresh preview.`,
    );
  }
  await writeFileAtomic(edit.filePath, edit.newContent, { signal: context.run.abortController.signal });
  const info = await stat(edit.filePath);
  recordFullView(context, edit.filePath, edit.newContent, info.mtimeMs);
}
