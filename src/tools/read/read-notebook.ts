import type { ImageMediaType } from '../../core/index.ts';
import { cellIdOf, joinSource, type NotebookDocument, type NotebookOutput } from '../shared/notebook.ts';

/** One cell as Read shows it. */
export interface NotebookCellView {
  cellId: string;
  cellType: string;
  source: string;
  executionCount?: number;
  outputs: Array<
    { kind: 'text'; text: string } | { kind: 'image'; mediaType: ImageMediaType; base64: string }
  >;
}

const maxOutputChars = 10_000;
const imageTypes: readonly ImageMediaType[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function outputText(output: NotebookOutput): string | undefined {
  switch (output.output_type) {
    case 'stream':
      return joinSource(output.text);
    case 'error':
      return [`${output.ename ?? 'Error'}: ${output.evalue ?? ''}`, ...(output.traceback ?? [])].join('\n');
    default: {
      const plain = output.data?.['text/plain'];
      return typeof plain === 'string' || Array.isArray(plain)
        ? joinSource(plain as string | string[])
        : undefined;
    }
  }
}

// Tracebacks carry terminal colour codes that only cost tokens.
const ansiPattern = /\u001b\[[0-9;]*[A-Za-z]/g;

/** The cells of a notebook with text and image outputs, long outputs cut. */
export function notebookCells(document: NotebookDocument): NotebookCellView[] {
  return document.cells.map((cell, index) => {
    const view: NotebookCellView = {
      cellId: cellIdOf(cell, index),
      cellType: cell.cell_type,
      source: joinSource(cell.source),
      outputs: [],
    };
    if (typeof cell.execution_count === 'number') view.executionCount = cell.execution_count;
    for (const output of cell.outputs ?? []) {
      const text = outputText(output)?.replace(ansiPattern, '');
      if (text) {
        view.outputs.push({
          kind: 'text',
          text:
            text.length > maxOutputChars ? `${text.slice(0, maxOutputChars)}\n… [output truncated]` : text,
        });
      }
      for (const mediaType of imageTypes) {
        const data = output.data?.[mediaType];
        if (typeof data === 'string')
          view.outputs.push({ kind: 'image', mediaType, base64: data.replace(/\s/g, '') });
      }
    }
    return view;
  });
}

/** The text the model reads for one cell. */
export function formatCell(cell: NotebookCellView, language: string): string {
  const header = `<cell id="${cell.cellId}" type="${cell.cellType}"${cell.executionCount === undefined ? '' : ` execution_count="${cell.executionCount}"`}>`;
  const source = cell.cellType === 'code' ? `\`\`\`${language}\n${cell.source}\n\`\`\`` : cell.source;
  const outputs = cell.outputs
    .filter((output) => output.kind === 'text')
    .map((output) => `<output>\n${output.text}\n</output>`);
  return [header, source, ...outputs, '</cell>'].join('\n');
}
