import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import {
  buildTool,
  EfferentError,
  ErrorCodes,
  openCheckedForRead,
  takeCheckedPath,
  type ToolUseContext,
  type ValidationResult,
  lazySchema,
} from '../../core/index.ts';
import { writeFileAtomic } from '../shared/atomic-write.ts';
import { assertWriteStaysInside } from '../shared/write-target.ts';
import { unwritableReason } from '../shared/file-change.ts';
import {
  type NotebookCell,
  type NotebookDocument,
  cellIdOf,
  findCellIndex,
  parseNotebook,
} from '../shared/notebook.ts';
import { resolveToolPath } from '../shared/paths.ts';
import { checkFreshness, recordFullView } from '../shared/read-state.ts';
import { locateCells } from './json-spans.ts';
import { notebookEditPrompt } from './notebook-edit.prompt.ts';
import { type CellChange, newCell, sourceLines, spliceNotebook } from './notebook-splice.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    notebook_path: z
      .string()
      .describe('The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)'),
    cell_id: z
      .string()
      .optional()
      .describe(
        'The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.',
      ),
    new_source: z.string().describe('The new source for the cell'),
    cell_type: z
      .enum(['code', 'markdown'])
      .optional()
      .describe(
        'The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.',
      ),
    edit_mode: z
      .enum(['replace', 'insert', 'delete'])
      .optional()
      .describe('The type of edit to make (replace, insert, delete). Defaults to replace.'),
  }),
);

/** NotebookEdit's input. */
export type NotebookEditInput = z.infer<ReturnType<typeof inputSchema>>;

/** What NotebookEdit did. */
export interface NotebookEditOutput {
  notebookPath: string;
  editMode: 'replace' | 'insert' | 'delete';
  cellId: string;
  cellType: string | undefined;
  newSource: string;
}

interface Prepared {
  path: string;
  text: string;
  document: NotebookDocument;
  change: CellChange;
  cellId: string;
}

function fail(code: string, message: string): { error: ValidationResult & { ok: false } } {
  return { error: { ok: false, code, message } };
}

function replacement(cell: NotebookCell, input: NotebookEditInput): NotebookCell {
  const updated: NotebookCell & Record<string, unknown> = { ...cell };
  updated.source = Array.isArray(cell.source) ? sourceLines(input.new_source) : input.new_source;
  const type = input.cell_type ?? cell.cell_type;
  updated.cell_type = type;
  if (type === 'code') {
    // Old outputs describe old code; keep the key order while clearing them.
    updated.execution_count = null;
    updated.outputs = [];
  } else {
    delete updated.execution_count;
    delete updated.outputs;
  }
  return updated;
}

async function prepare(
  input: NotebookEditInput,
  context: Pick<ToolUseContext, 'run'>,
  checked?: string,
): Promise<Prepared | { error: ValidationResult & { ok: false } }> {
  const path = resolveToolPath(input.notebook_path, context);
  if (extname(path).toLowerCase() !== '.ipynb') {
    return fail(
      ErrorCodes.validationFailed,
      `${path} is not a Jupyter notebook (.ipynb). Use Edit for other files.`,
    );
  }
  const mode = input.edit_mode ?? 'replace';
  if (mode === 'insert' && !input.cell_type)
    return fail(ErrorCodes.validationFailed, 'cell_type is required when edit_mode is insert.');
  if (mode !== 'insert' && input.cell_id === undefined)
    return fail(ErrorCodes.validationFailed, `cell_id is required when edit_mode is ${mode}.`);
  const stats = await stat(path).catch(() => undefined);
  const blocked = unwritableReason(path, stats);
  if (blocked) return fail(ErrorCodes.pathBlocked, blocked);
  if (!stats)
    return fail(
      ErrorCodes.fileNotFound,
      `Notebook does not exist: ${path}. Check the path (Glob can find it).`,
    );
  // The notebook is read from the file the permission check judged, or not at all.
  const file = openCheckedForRead(path, checked);
  let text: string;
  try {
    text = await readFile(file.source, 'utf8');
  } finally {
    file.close();
  }
  const freshness = checkFreshness(context, path, { text, mtimeMs: stats.mtimeMs });
  if (!freshness.ok)
    return fail(
      freshness.reason === 'stale' ? ErrorCodes.fileStale : ErrorCodes.fileNotRead,
      freshness.message,
    );
  const document = parseNotebook(text);
  if (typeof document === 'string') return fail(ErrorCodes.validationFailed, `${path}: ${document}`);
  try {
    locateCells(text);
  } catch (error) {
    return fail(
      ErrorCodes.validationFailed,
      `${path}: ${(error as Error).message}, so the cell to change is ambiguous. Fix the notebook's JSON first (Write the corrected file), then retry.`,
    );
  }
  const index = input.cell_id === undefined ? undefined : findCellIndex(document.cells, input.cell_id);
  if (input.cell_id !== undefined && index === undefined) {
    const known = document.cells.slice(0, 20).map((cell, position) => cellIdOf(cell, position));
    return fail(
      ErrorCodes.validationFailed,
      `No cell with id "${input.cell_id}" in ${path}. Cell ids: ${known.join(', ')}${document.cells.length > 20 ? ', …' : ''}.`,
    );
  }
  if (mode === 'insert') {
    const usesIds =
      (document.nbformat ?? 4) > 4 ||
      ((document.nbformat ?? 4) === 4 && (document.nbformat_minor ?? 0) >= 5) ||
      document.cells.some((cell) => typeof cell.id === 'string');
    const usesLines = document.cells.length === 0 || Array.isArray(document.cells[0]?.source);
    const cell = newCell(
      input.cell_type ?? 'code',
      usesLines ? sourceLines(input.new_source) : input.new_source,
      usesIds,
    );
    const insertedIndex = index === undefined ? 0 : index + 1;
    return {
      path,
      text,
      document,
      change: { kind: 'insert', afterIndex: index, cell },
      cellId: cell.id ?? `cell-${insertedIndex}`,
    };
  }
  const target = document.cells[index as number] as NotebookCell;
  const cellId = cellIdOf(target, index as number);
  if (mode === 'delete')
    return { path, text, document, change: { kind: 'delete', index: index as number }, cellId };
  return {
    path,
    text,
    document,
    change: { kind: 'replace', index: index as number, cell: replacement(target, input) },
    cellId,
  };
}

/** Replaces, inserts or deletes one notebook cell, leaving everything else byte for byte. */
export const NotebookEditTool = buildTool<NotebookEditInput, NotebookEditOutput>({
  name: 'NotebookEdit',
  searchHint: 'edit a Jupyter notebook cell',
  get inputSchema() {
    return inputSchema();
  },
  prompt: notebookEditPrompt,
  shouldDefer: true,
  description: (input) => (input.notebook_path ? `Edit notebook ${input.notebook_path}` : 'Edit a notebook'),
  userFacingName: () => 'NotebookEdit',
  ...pathDeclarations('notebook_path', 'write'),
  toAutoClassifierInput: (input) =>
    `${input.notebook_path} ${input.edit_mode ?? 'replace'}: ${input.new_source}`,
  async validateInput(input, context) {
    const prepared = await prepare(input, context);
    return 'error' in prepared ? prepared.error : { ok: true };
  },
  async call(input, context, _canUseTool, _onProgress, toolUseId) {
    const checked = takeCheckedPath(context.run, toolUseId);
    const prepared = await prepare(input, context, checked);
    if ('error' in prepared) throw new EfferentError(ErrorCodes.validationFailed, prepared.error.message);
    let updated: string;
    try {
      updated = spliceNotebook(prepared.text, prepared.change);
    } catch (error) {
      throw new EfferentError(
        ErrorCodes.toolFailed,
        `${prepared.path}: ${(error as Error).message}. The notebook was not written; Read it again and retry, or rewrite it with Write.`,
        { cause: error },
      );
    }
    assertWriteStaysInside(prepared.path, context);
    await writeFileAtomic(prepared.path, updated, {
      signal: context.run.abortController.signal,
      ...(checked === undefined ? {} : { checked }),
    });
    recordFullView(context, prepared.path, updated, (await stat(prepared.path)).mtimeMs);
    const cellType = prepared.change.kind === 'delete' ? undefined : prepared.change.cell.cell_type;
    return {
      data: {
        notebookPath: prepared.path,
        editMode: prepared.change.kind,
        cellId: prepared.cellId,
        cellType,
        newSource: input.new_source,
      },
    };
  },
  mapResultToBlock: (output, toolUseId) => {
    const text =
      output.editMode === 'delete'
        ? `Deleted cell ${output.cellId} from ${output.notebookPath}.`
        : output.editMode === 'insert'
          ? `Inserted ${output.cellType} cell ${output.cellId} into ${output.notebookPath}.`
          : `Updated cell ${output.cellId} of ${output.notebookPath}.`;
    return { type: 'tool_result', toolUseId, content: text };
  },
  renderToolUse: (input) => `NotebookEdit(${input.notebook_path ?? ''})`,
});
