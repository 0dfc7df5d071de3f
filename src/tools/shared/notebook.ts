/** A notebook cell output as nbformat 4 stores it. */
export interface NotebookOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

/** A notebook cell as nbformat 4 stores it. */
export interface NotebookCell {
  cell_type: string;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
}

/** The parts of a notebook file efferent reads. */
export interface NotebookDocument {
  cells: NotebookCell[];
  metadata?: { language_info?: { name?: string } } & Record<string, unknown>;
  nbformat?: number;
  nbformat_minor?: number;
}

/** Joins nbformat's string-or-lines text fields. */
export function joinSource(source: string | string[] | undefined): string {
  return Array.isArray(source) ? source.join('') : (source ?? '');
}

/** The id the model uses for a cell: its own id, or `cell-N` (0-based index) when it has none. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === 'string' && cell.id !== '' ? cell.id : `cell-${index}`;
}

/**
 * The index of the cell a model-given id refers to: an exact id first, then the `cell-N` index form
 * (older notebooks have no ids). Undefined when nothing matches.
 */
export function findCellIndex(cells: readonly NotebookCell[], cellId: string): number | undefined {
  const exact = cells.findIndex((cell) => cell.id === cellId);
  if (exact !== -1) return exact;
  const match = /^cell-(\d+)$/.exec(cellId) ?? /^(\d+)$/.exec(cellId);
  if (!match) return undefined;
  const index = Number(match[1]);
  return index < cells.length ? index : undefined;
}

/** Parses notebook JSON, or returns a sentence saying why it is not a notebook. */
export function parseNotebook(text: string): NotebookDocument | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `The notebook is not valid JSON (${(error as Error).message}).`;
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as NotebookDocument).cells)) {
    return 'The file is not a Jupyter notebook: it has no "cells" array.';
  }
  return value as NotebookDocument;
}
