import { groupDigits } from '../shared/group-digits.ts';

/** Read's limits, shared by the prompt and the implementation so they never disagree. */
export const readLimits = {
  defaultLines: 2000,
  maxLineChars: 2000,
  maxOutputTokens: 25_000,
  /** Files above this are never loaded whole; without offset/limit only a first page is shown. */
  maxWholeFileBytes: 256 * 1024,
  maxImageBytes: 500 * 1024,
  maxImageDimension: 2000,
  pdfPagesWithoutRange: 10,
  maxPdfPagesPerCall: 20,
  maxNotebookBytes: 100 * 1024 * 1024,
} as const;

/** The description the model reads for Read. */
export const readPrompt = `Reads a file from the local filesystem and returns its contents.

Usage:
- file_path must be an absolute path (relative paths are resolved against the working directory).
- By default up to ${readLimits.defaultLines} lines are returned, starting at the top of the file. For long files, pass offset (the line number to start at, 1-based) and limit (how many lines) to read a specific part; otherwise read the whole file.
- Lines longer than ${readLimits.maxLineChars} characters are cut.
- Output is numbered like \`cat -n\`: each line starts with its line number and a tab. The number and tab are not part of the file; never include them in old_string when editing.
- Output is limited to about ${groupDigits(readLimits.maxOutputTokens)} tokens. A file too large for that returns a partial first page; read the rest with offset and limit, or search it with Grep.
- Images (PNG, JPEG, GIF, WebP and others) are shown to you as images; large ones are downscaled.
- PDFs are returned as text, page by page. For PDFs longer than ${readLimits.pdfPagesWithoutRange} pages you must pass pages (for example "1-5" or "3"), at most ${readLimits.maxPdfPagesPerCall} pages per call.
- Jupyter notebooks (.ipynb) are returned as cells with their outputs.
- Directories cannot be read: list them with Bash \`ls\` or find files with Glob.
- Reading a file you have already read and that has not changed is wasteful; rely on what you saw.
- Call Read on several files in parallel when you need several.
- Screenshot paths that contain special spaces (as macOS produces) can be passed as they are.
- An existing but empty file returns a note saying so.`;
