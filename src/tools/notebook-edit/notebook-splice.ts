import { randomBytes } from 'node:crypto';
import type { NotebookCell } from '../shared/notebook.ts';
import { type CellsLayout, indentationAt, locateCells } from './json-spans.ts';

/** One change to a notebook's cell list. */
export type CellChange =
  | { kind: 'replace'; index: number; cell: NotebookCell }
  | { kind: 'insert'; afterIndex: number | undefined; cell: NotebookCell }
  | { kind: 'delete'; index: number };

interface Style {
  newline: string;
  /** One level of indentation ('' for compact JSON). */
  unit: string;
  /** Indentation of a cell inside the array. */
  cellIndent: string;
  /** Indentation of the line holding `"cells": [`. */
  keyIndent: string;
}

function detectStyle(text: string, layout: CellsLayout): Style {
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const keyIndent = indentationAt(text, layout.array.start);
  const compact = !text.slice(layout.array.start, layout.array.end).includes('\n') && layout.cells.length > 0;
  const first = layout.cells[0];
  const cellIndent = compact
    ? ''
    : first
      ? indentationAt(text, first.start)
      : `${keyIndent}${keyIndent || ' '}`;
  const unit = compact ? '' : cellIndent.slice(keyIndent.length) || ' ';
  return { newline, unit, cellIndent, keyIndent };
}

function serializeCell(cell: NotebookCell, style: Style): string {
  if (style.unit === '') return JSON.stringify(cell);
  return JSON.stringify(cell, null, style.unit)
    .split('\n')
    .map((line, index) => (index === 0 ? line : `${style.cellIndent}${line}`))
    .join(style.newline);
}

/** nbformat's line-list form of a source string (each line keeps its newline). */
export function sourceLines(source: string): string[] {
  return source === '' ? [] : (source.match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

/** A fresh cell with nbformat's key order; an id only when the notebook format uses them. */
export function newCell(
  cellType: 'code' | 'markdown',
  source: string | string[],
  withId: boolean,
): NotebookCell {
  const cell: Record<string, unknown> = { cell_type: cellType };
  if (cellType === 'code') cell['execution_count'] = null;
  if (withId) cell['id'] = randomBytes(4).toString('hex');
  cell['metadata'] = {};
  if (cellType === 'code') cell['outputs'] = [];
  cell['source'] = source;
  return cell as unknown as NotebookCell;
}

/**
 * Applies one cell change by splicing the notebook text: only the changed cell's text is produced,
 * everything else (other cells, metadata, key order, indentation, trailing newline) stays byte for byte.
 * The result is verified: it must parse, and every untouched cell must be identical to before.
 */
export function spliceNotebook(text: string, change: CellChange): string {
  const layout = locateCells(text);
  const style = detectStyle(text, layout);
  const { cells } = layout;
  const separator = style.unit === '' ? ',' : `,${style.newline}${style.cellIndent}`;
  let result: string;
  let untouched: number[];
  switch (change.kind) {
    case 'replace': {
      const span = cells[change.index];
      if (!span) throw new RangeError(`No cell at index ${change.index}`);
      result = text.slice(0, span.start) + serializeCell(change.cell, style) + text.slice(span.end);
      untouched = cells.map((_, index) => index).filter((index) => index !== change.index);
      break;
    }
    case 'delete': {
      const span = cells[change.index];
      if (!span) throw new RangeError(`No cell at index ${change.index}`);
      const next = cells[change.index + 1];
      const previous = cells[change.index - 1];
      if (next) result = text.slice(0, span.start) + text.slice(next.start);
      else if (previous) result = text.slice(0, previous.end) + text.slice(span.end);
      else result = `${text.slice(0, layout.array.start + 1)}]${text.slice(layout.array.end)}`;
      untouched = cells.map((_, index) => index).filter((index) => index !== change.index);
      break;
    }
    case 'insert': {
      const serialized = serializeCell(change.cell, style);
      if (change.afterIndex !== undefined) {
        const span = cells[change.afterIndex];
        if (!span) throw new RangeError(`No cell at index ${change.afterIndex}`);
        result = text.slice(0, span.end) + separator + serialized + text.slice(span.end);
      } else if (cells[0]) {
        result = text.slice(0, cells[0].start) + serialized + separator + text.slice(cells[0].start);
      } else {
        const inner =
          style.unit === ''
            ? serialized
            : `${style.newline}${style.cellIndent}${serialized}${style.newline}${style.keyIndent}`;
        result = `${text.slice(0, layout.array.start + 1)}${inner}]${text.slice(layout.array.end)}`;
      }
      untouched = cells.map((_, index) => index);
      break;
    }
  }
  verify(text, layout, result, change, untouched);
  return result;
}

function verify(
  before: string,
  layout: CellsLayout,
  after: string,
  change: CellChange,
  untouched: number[],
): void {
  JSON.parse(after);
  const afterLayout = locateCells(after);
  const shift = (index: number) => {
    if (change.kind === 'delete') return index > change.index ? index - 1 : index;
    if (change.kind === 'insert')
      return change.afterIndex === undefined || index > change.afterIndex ? index + 1 : index;
    return index;
  };
  for (const index of untouched) {
    const old = layout.cells[index];
    const now = afterLayout.cells[shift(index)];
    if (!old || !now || before.slice(old.start, old.end) !== after.slice(now.start, now.end)) {
      throw new Error(`Internal check failed: cell ${index} would change; the notebook was not written.`);
    }
  }
}
