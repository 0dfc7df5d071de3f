import { open, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import {
  buildTool,
  EfferentError,
  ErrorCodes,
  type ImageBlock,
  openCheckedForRead,
  takeCheckedPath,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseContext,
  lazySchema,
} from '../../core/index.ts';
import { blockedPathReason } from '../shared/device-paths.ts';
import { numberLines } from '../shared/line-numbers.ts';
import { parseNotebook } from '../shared/notebook.ts';
import { resolveToolPath } from '../shared/paths.ts';
import { hasTextBom, looksBinary } from '../shared/text-file.ts';
import { type ImageView, isImageMime, prepareImage } from './read-image.ts';
import { formatCell, type NotebookCellView, notebookCells } from './read-notebook.ts';
import { type PdfView, parsePageRanges, readPdf } from './read-pdf.ts';
import { outputCharBudget, readTextWindow, type TextView } from './read-text.ts';
import { readLimits, readPrompt } from './read.prompt.ts';
import { resolveReadableFile } from './resolve-file.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('The absolute path to the file to read'),
    offset: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'The line number to start reading from. Only provide if the file is too large to read at once',
      ),
    limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The number of lines to read. Only provide if the file is too large to read at once.'),
    pages: z
      .string()
      .optional()
      .describe(
        'Page range for PDF files (e.g., "1-5", "3", "10-20"). Only applicable to PDF files. Maximum 20 pages per request.',
      ),
  }),
);

/** Read's input. */
export type ReadInput = z.infer<ReturnType<typeof inputSchema>>;

/** What Read returns, by kind of file. */
export type ReadOutput =
  | { type: 'text'; file: { filePath: string } & TextView }
  | { type: 'image'; file: { filePath: string } & ImageView }
  | { type: 'pdf'; file: { filePath: string } & PdfView }
  | { type: 'notebook'; file: { filePath: string; language: string; cells: NotebookCellView[] } };

const textLikeMime = /^(text\/|application\/(xml|json|javascript|x-sh)|image\/svg)/;

async function readHeader(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function readNotebookFile(
  path: string,
  { size, mtimeMs }: { size: number; mtimeMs: number },
  context: ToolUseContext,
  source: string,
): Promise<ReadOutput> {
  if (size > readLimits.maxNotebookBytes) {
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `${path} is ${size.toLocaleString('en-US')} bytes; notebooks over 100 MB are not read. Use Bash with jq to read parts of it (for example jq '.cells[:20]').`,
    );
  }
  const text = await readFile(source, { encoding: 'utf8', signal: context.run.abortController.signal });
  const document = parseNotebook(text);
  if (typeof document === 'string') throw new EfferentError(ErrorCodes.toolFailed, `${path}: ${document}`);
  const cells = notebookCells(document);
  const language = document.metadata?.language_info?.name ?? 'python';
  const shown = cells.map((cell) => formatCell(cell, language)).join('\n').length;
  const budget = outputCharBudget(context.run.env);
  if (shown > budget.chars) {
    throw new EfferentError(
      ErrorCodes.fileTooLarge,
      `${path} has ${cells.length} cells, more than the output limit of ${budget.tokens.toLocaleString('en-US')} tokens. Use Bash with jq to read parts of it, for example: jq '.cells[:20]' "${path}".`,
    );
  }
  context.run.readFileState.set(path, { content: text, timestamp: mtimeMs });
  return { type: 'notebook', file: { filePath: path, language, cells } };
}

function pdfBlocks(output: Extract<ReadOutput, { type: 'pdf' }>): string {
  const { file } = output;
  const pages = file.pages.map((page) => `<page number="${page.page}">\n${page.text}\n</page>`);
  return [
    `PDF ${file.filePath}: ${file.totalPages} page(s); showing ${file.pages.map((page) => page.page).join(', ')}.`,
    ...pages,
  ].join('\n');
}

function textResult(output: Extract<ReadOutput, { type: 'text' }>): string {
  const { file } = output;
  const body = file.numLines > 0 ? numberLines(file.content.split('\n'), file.startLine) : '';
  const notes = file.notes.map((note) => `<system-reminder>${note}</system-reminder>`);
  return [body, ...notes].filter((part) => part !== '').join('\n\n');
}

/** Read's tool_result content: numbered text, an image block, PDF pages or notebook cells. */
export function readResultBlock(output: ReadOutput, toolUseId: string): ToolResultBlock {
  switch (output.type) {
    case 'text':
      return { type: 'tool_result', toolUseId, content: textResult(output) };
    case 'image': {
      const { file } = output;
      const image: ImageBlock = {
        type: 'image',
        source: { type: 'base64', mediaType: file.mediaType, data: file.base64 },
      };
      return { type: 'tool_result', toolUseId, content: [image] };
    }
    case 'pdf':
      return { type: 'tool_result', toolUseId, content: pdfBlocks(output) };
    case 'notebook': {
      const blocks: Array<TextBlock | ImageBlock> = [];
      for (const cell of output.file.cells) {
        blocks.push({ type: 'text', text: formatCell(cell, output.file.language) });
        for (const item of cell.outputs) {
          if (item.kind === 'image') {
            blocks.push({
              type: 'image',
              source: { type: 'base64', mediaType: item.mediaType, data: item.base64 },
            });
          }
        }
      }
      if (blocks.length === 0) blocks.push({ type: 'text', text: 'The notebook has no cells.' });
      return { type: 'tool_result', toolUseId, content: blocks };
    }
  }
}

/** Reads files: text with line numbers, images, PDFs and notebooks; refuses devices and directories. */
/** Reads the resolved file; `source` names the bytes to read (the checked descriptor, or `path`). */
async function readResolved(
  path: string,
  stats: Awaited<ReturnType<typeof resolveReadableFile>>['stats'],
  source: string,
  input: ReadInput,
  context: ToolUseContext,
): Promise<ReadOutput> {
  if (extname(path).toLowerCase() === '.ipynb') return readNotebookFile(path, stats, context, source);
  const header = await readHeader(source);
  // A UTF-16LE BOM (FF FE) is also an MPEG audio frame sync, so sniffing would call such text audio.
  const detected = hasTextBom(header)
    ? undefined
    : await (await import('file-type')).fileTypeFromBuffer(header);
  if (detected && isImageMime(detected.mime)) {
    const bytes = await readFile(source, { signal: context.run.abortController.signal });
    return { type: 'image', file: { filePath: path, ...(await prepareImage(bytes, detected.mime)) } };
  }
  if (detected?.mime === 'application/pdf') {
    const bytes = await readFile(source, { signal: context.run.abortController.signal });
    return { type: 'pdf', file: { filePath: path, ...(await readPdf(bytes, path, input.pages)) } };
  }
  if (looksBinary(header) || (detected && !textLikeMime.test(detected.mime))) {
    const kind = detected ? `${detected.mime} (.${detected.ext})` : 'binary data';
    throw new EfferentError(
      ErrorCodes.validationFailed,
      `${path} is a binary file (${kind}) and cannot be shown as text. Inspect it with Bash instead (file, xxd -l 256, strings | head).`,
    );
  }
  const { view, record } = await readTextWindow(path, stats, input, context, source);
  context.run.readFileState.set(path, record);
  return { type: 'text', file: { filePath: path, ...view } };
}

export const ReadTool = buildTool<ReadInput, ReadOutput>({
  name: 'Read',
  searchHint: 'read a file, image, PDF or notebook from disk',
  get inputSchema() {
    return inputSchema();
  },
  prompt: readPrompt,
  description: (input) => (input.file_path ? `Read ${input.file_path}` : 'Read a file'),
  userFacingName: () => 'Read',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  interruptBehavior: () => 'cancel',
  ...pathDeclarations('file_path', 'read'),
  toAutoClassifierInput: (input) => input.file_path,
  async validateInput(input, context) {
    const path = resolveToolPath(input.file_path, context);
    const blocked = blockedPathReason(path);
    if (blocked) return { ok: false, message: blocked, code: ErrorCodes.pathBlocked };
    if (input.pages !== undefined) {
      const parsed = parsePageRanges(input.pages);
      if (typeof parsed === 'string')
        return { ok: false, message: parsed, code: ErrorCodes.validationFailed };
      if (extname(path).toLowerCase() !== '.pdf') {
        return {
          ok: false,
          message: 'pages only applies to PDF files; use offset and limit for text files.',
          code: ErrorCodes.validationFailed,
        };
      }
    }
    return { ok: true };
  },
  async call(input, context, _canUseTool, _onProgress, toolUseId) {
    const checked = takeCheckedPath(context.run, toolUseId);
    const requested = resolveToolPath(input.file_path, context);
    const { path, stats } = await resolveReadableFile(requested, context.run.cwd);
    // The bytes come from the file the permission check judged (the other screenshot spelling sits
    // beside it), opened once: a link swapped in since cannot redirect the read.
    const expected =
      checked === undefined || path === requested ? checked : join(dirname(checked), basename(path));
    const file = openCheckedForRead(path, expected);
    try {
      return { data: await readResolved(path, stats, file.source, input, context) };
    } finally {
      file.close();
    }
  },
  mapResultToBlock: readResultBlock,
  renderToolUse: (input) => `Read(${input.file_path ?? ''})`,
});
