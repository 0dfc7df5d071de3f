import { extname } from 'node:path';
import { EfferentError, ErrorCodes, type ToolUseContext } from '../../core/index.ts';
import { type DiffHunk, diffLines } from './diff.ts';
import { editSnippet } from './edit-result.ts';
import { commitText, type LoadedFile, lineNumberAt, loadFileForChange } from './file-change.ts';
import { resolveToolPath } from './paths.ts';
import { checkFreshness } from './read-state.ts';
import { applyStringEdit, describeEditFailure, type StringEdit } from './string-edit.ts';
import { didYouMean } from './suggestions.ts';
import type { TextFormat } from './text-file.ts';

/**
 * Edit's validation codes, numbered as in the reference implementation so logs and tests line up
 * (0 and 2 — team-memory secrets and settings denials — belong to other layers here).
 */
export const EditErrorCode = {
  noChange: 1,
  fileExists: 3,
  fileNotFound: 4,
  notebook: 5,
  notRead: 6,
  modifiedSinceRead: 7,
  notFound: 8,
  ambiguous: 9,
  tooLarge: 10,
} as const;

/** A refused edit: the code and the sentence the model reads. */
export interface EditRefusal {
  ok: false;
  code: number | string;
  message: string;
}

/** A checked edit, ready to write. */
export interface EditPlan {
  ok: true;
  path: string;
  kind: 'create' | 'update';
  original: string;
  updated: string;
  format: TextFormat | undefined;
  replacements: number;
  /** 1-based lines of the new text the edits touched, for the snippet. */
  firstLine: number;
  lastLine: number;
  /** The physical path the permission check judged: the plan reads and writes only that file. */
  checked?: string;
}

/** What Edit and MultiEdit report after writing. */
export interface EditOutput {
  filePath: string;
  kind: 'create' | 'update';
  replacements: number;
  structuredPatch: DiffHunk[];
  snippet: { startLine: number; text: string };
}

function refuse(code: number | string, message: string): EditRefusal {
  return { ok: false, code, message };
}

const freshnessCodes = {
  'not-read': EditErrorCode.notRead,
  partial: EditErrorCode.notRead,
  stale: EditErrorCode.modifiedSinceRead,
};

/**
 * Checks a sequence of edits against the file as it is now and computes the result in memory, without
 * writing. Edits apply in order, each to the previous one's result; any failure refuses them all,
 * naming the failing edit when there are several. An empty first `old_string` creates a file.
 */
export async function planEdits(
  filePath: string,
  edits: readonly StringEdit[],
  context: Pick<ToolUseContext, 'run'>,
  checked?: string,
): Promise<EditPlan | EditRefusal> {
  const path = resolveToolPath(filePath, context);
  const label = (index: number) => (edits.length > 1 ? `Edit ${index + 1} of ${edits.length}: ` : '');
  if (extname(path).toLowerCase() === '.ipynb') {
    return refuse(EditErrorCode.notebook, `${path} is a Jupyter notebook; edit it with NotebookEdit.`);
  }
  for (const [index, edit] of edits.entries()) {
    if (edit.old_string === edit.new_string) {
      return refuse(
        EditErrorCode.noChange,
        label(index) + describeEditFailure({ kind: 'no-op', code: 1 }, path, ''),
      );
    }
  }
  let file: LoadedFile;
  try {
    file = await loadFileForChange(path, context.run.abortController.signal, checked);
  } catch (error) {
    if (!EfferentError.isInstance(error)) throw error;
    const code = error.code === ErrorCodes.fileTooLarge ? EditErrorCode.tooLarge : error.code;
    return refuse(code, error.message);
  }
  const [first, ...rest] = edits;
  if (!first) return refuse(ErrorCodes.inputInvalid, 'No edits given; pass at least one edit.');
  if (!file.exists) {
    if (first.old_string !== '') {
      const hint = await didYouMean(path);
      return refuse(
        EditErrorCode.fileNotFound,
        `File does not exist: ${path}.${hint} The current working directory is ${context.run.cwd}. To create a new file, use an empty old_string (or the Write tool).`,
      );
    }
    return applySequence(path, '', first.new_string, rest, undefined, 'create', label, 1);
  }
  if (first.old_string === '') {
    if (file.text.trim() !== '') {
      return refuse(
        EditErrorCode.fileExists,
        `Cannot create ${path}: it already exists and has content. To change it, give the text to replace as old_string.`,
      );
    }
    return applySequence(path, file.text, first.new_string, rest, file.format, 'update', label, 1);
  }
  const freshness = checkFreshness(context, path, file);
  if (!freshness.ok) return refuse(freshnessCodes[freshness.reason], freshness.message);
  return applySequence(path, file.text, file.text, edits, file.format, 'update', label, 0);
}

function applySequence(
  path: string,
  original: string,
  start: string,
  edits: readonly StringEdit[],
  format: TextFormat | undefined,
  kind: 'create' | 'update',
  label: (index: number) => string,
  indexOffset: number,
): EditPlan | EditRefusal {
  let text = start;
  let replacements = indexOffset;
  let firstLine = Number.POSITIVE_INFINITY;
  let lastLine = 0;
  if (indexOffset === 1) {
    firstLine = 1;
    lastLine = start.split('\n').length;
  }
  for (const [position, edit] of edits.entries()) {
    const index = position + indexOffset;
    if (edit.old_string === '') {
      return refuse(
        EditErrorCode.fileExists,
        `${label(index)}old_string is empty, which only creates a new file; give the text to replace.`,
      );
    }
    const outcome = applyStringEdit(text, edit);
    if (!outcome.ok)
      return refuse(
        outcome.failure.code,
        label(index) + describeEditFailure(outcome.failure, path, edit.old_string),
      );
    const startLine = lineNumberAt(outcome.text, outcome.index);
    firstLine = Math.min(firstLine, startLine);
    lastLine = Math.max(lastLine, startLine + outcome.actualNew.split('\n').length - 1);
    replacements += outcome.count;
    text = outcome.text;
  }
  return { ok: true, path, kind, original, updated: text, format, replacements, firstLine, lastLine };
}

/** Writes a checked plan and describes the change. */
export async function commitEditPlan(
  plan: EditPlan,
  context: Pick<ToolUseContext, 'run'>,
): Promise<EditOutput> {
  await commitText(plan.path, plan.updated, plan.format, context, plan.checked);
  return {
    filePath: plan.path,
    kind: plan.kind,
    replacements: plan.replacements,
    structuredPatch: diffLines(plan.original, plan.updated),
    snippet: editSnippet(plan.updated, plan.firstLine, plan.lastLine),
  };
}

/** Runs {@link planEdits} inside `call()`: a refusal becomes an error for the model. */
export async function planOrThrow(
  filePath: string,
  edits: readonly StringEdit[],
  context: Pick<ToolUseContext, 'run'>,
  checked?: string,
): Promise<EditPlan> {
  const plan = await planEdits(filePath, edits, context, checked);
  if (plan.ok) return checked === undefined ? plan : { ...plan, checked };
  const code =
    plan.code === EditErrorCode.modifiedSinceRead
      ? ErrorCodes.fileStale
      : plan.code === EditErrorCode.notRead
        ? ErrorCodes.fileNotRead
        : plan.code === EditErrorCode.fileNotFound
          ? ErrorCodes.fileNotFound
          : ErrorCodes.validationFailed;
  throw new EfferentError(code, plan.message);
}

/** The confirmation text the model reads after an edit. */
export function describeEditOutput(output: EditOutput): string {
  if (output.kind === 'create') return `File created successfully at: ${output.filePath}`;
  const count = output.replacements > 1 ? ` (${output.replacements} replacements)` : '';
  return `The file ${output.filePath} has been updated${count}. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${output.snippet.text}`;
}
