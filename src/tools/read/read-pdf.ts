import { EfferentError, ErrorCodes } from '../../core/index.ts';
import { readLimits } from './read.prompt.ts';

/** Text of the requested pages of a PDF. */
export interface PdfView {
  totalPages: number;
  pages: Array<{ page: number; text: string }>;
}

/**
 * Parses a `pages` value such as "3", "1-5" or "1-3,7,10-12" into sorted 1-based page numbers.
 * Returns an error sentence for malformed input.
 */
export function parsePageRanges(value: string): number[] | string {
  const pages = new Set<number>();
  for (const part of value.split(',')) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!match) return `pages "${value}" is not a page range; use forms like "3", "1-5" or "1-3,7".`;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last < first)
      return `pages "${value}" is not a valid range; pages start at 1 and ranges go upwards.`;
    if (last - first >= readLimits.maxPdfPagesPerCall) {
      return `pages "${value}" asks for more than ${readLimits.maxPdfPagesPerCall} pages; read at most ${readLimits.maxPdfPagesPerCall} pages per call.`;
    }
    for (let page = first; page <= last; page++) pages.add(page);
  }
  if (pages.size > readLimits.maxPdfPagesPerCall) {
    return `pages "${value}" asks for ${pages.size} pages; read at most ${readLimits.maxPdfPagesPerCall} pages per call.`;
  }
  return [...pages].sort((a, b) => a - b);
}

/** Extracts the text of a PDF's pages; long PDFs need an explicit `pages` range. */
export async function readPdf(
  bytes: Uint8Array,
  filePath: string,
  pages: string | undefined,
): Promise<PdfView> {
  const { getDocumentProxy } = await import('unpdf');
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(new Uint8Array(bytes));
  } catch (error) {
    throw new EfferentError(
      ErrorCodes.toolFailed,
      `${filePath} could not be parsed as a PDF (it may be damaged or encrypted).`,
      { cause: error },
    );
  }
  try {
    const totalPages = document.numPages;
    let wanted: number[];
    if (pages === undefined) {
      if (totalPages > readLimits.pdfPagesWithoutRange) {
        throw new EfferentError(
          ErrorCodes.validationFailed,
          `${filePath} has ${totalPages} pages; PDFs over ${readLimits.pdfPagesWithoutRange} pages need the pages parameter (for example pages: "1-5"), at most ${readLimits.maxPdfPagesPerCall} pages per call.`,
        );
      }
      wanted = Array.from({ length: totalPages }, (_, index) => index + 1);
    } else {
      const parsed = parsePageRanges(pages);
      if (typeof parsed === 'string') throw new EfferentError(ErrorCodes.validationFailed, parsed);
      wanted = parsed.filter((page) => page <= totalPages);
      if (wanted.length === 0) {
        throw new EfferentError(
          ErrorCodes.validationFailed,
          `${filePath} has only ${totalPages} pages; pages "${pages}" is past its end.`,
        );
      }
    }
    const result: PdfView = { totalPages, pages: [] };
    for (const page of wanted) {
      const proxy = await document.getPage(page);
      const content = await proxy.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : ''))
        .join('')
        .trim();
      result.pages.push({ page, text });
    }
    return result;
  } finally {
    await document.destroy();
  }
}
