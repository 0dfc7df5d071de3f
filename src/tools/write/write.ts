import { z } from 'zod';
import {
  buildTool,
  EfferentError,
  ErrorCodes,
  takeCheckedPath,
  type ToolUseContext,
  lazySchema,
} from '../../core/index.ts';
import { type DiffHunk, diffLines } from '../shared/diff.ts';
import { editSnippet } from '../shared/edit-result.ts';
import { commitText, type LoadedFile, loadFileForChange } from '../shared/file-change.ts';
import { resolveToolPath } from '../shared/paths.ts';
import { checkFreshness } from '../shared/read-state.ts';
import { writePrompt } from './write.prompt.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('The absolute path to the file to write (must be absolute, not relative)'),
    content: z.string().describe('The content to write to the file'),
  }),
);

/** Write's input. */
export type WriteInput = z.infer<ReturnType<typeof inputSchema>>;

/** What Write reports: whether it created or replaced the file, and the change as hunks. */
export interface WriteOutput {
  type: 'create' | 'update';
  filePath: string;
  structuredPatch: DiffHunk[];
  /** Lines written; a final newline ends the last line, it does not start another. */
  lines: number;
  /** A numbered excerpt around the first change (or the start of a new file). */
  snippet?: { startLine: number; text: string };
}

/** At most this many lines of the written file are echoed back to the model. */
const snippetMaxLines = 16;

/** The number of lines in `text`: a trailing newline does not count as an extra, empty line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

function writeSnippet(content: string, patch: DiffHunk[]): { startLine: number; text: string } | undefined {
  if (content === '') return undefined;
  const first = patch[0];
  const firstLine = first ? Math.max(1, first.newStart) : 1;
  const lastLine = first ? Math.max(firstLine, first.newStart + first.newLines - 1) : firstLine;
  const snippet = editSnippet(content.endsWith('\n') ? content.slice(0, -1) : content, firstLine, lastLine);
  const lines = snippet.text.split('\n');
  return lines.length <= snippetMaxLines
    ? snippet
    : { startLine: snippet.startLine, text: `${lines.slice(0, snippetMaxLines).join('\n')}\n…` };
}

async function checkWritable(
  input: WriteInput,
  context: Pick<ToolUseContext, 'run'>,
  checked?: string,
): Promise<{ path: string; file: LoadedFile } | { error: EfferentError }> {
  const path = resolveToolPath(input.file_path, context);
  let file: LoadedFile;
  try {
    file = await loadFileForChange(path, context.run.abortController.signal, checked);
  } catch (error) {
    if (EfferentError.isInstance(error)) return { error };
    throw error;
  }
  if (file.exists) {
    const freshness = checkFreshness(context, path, file);
    if (!freshness.ok) {
      const code = freshness.reason === 'stale' ? ErrorCodes.fileStale : ErrorCodes.fileNotRead;
      return { error: new EfferentError(code, freshness.message) };
    }
  }
  return { path, file };
}

/** Creates or replaces a whole file atomically; existing files must have been read first. */
export const WriteTool = buildTool<WriteInput, WriteOutput>({
  name: 'Write',
  searchHint: 'create or overwrite a file',
  get inputSchema() {
    return inputSchema();
  },
  prompt: writePrompt,
  description: (input) => (input.file_path ? `Write ${input.file_path}` : 'Write a file'),
  userFacingName: () => 'Write',
  ...pathDeclarations('file_path', 'write'),
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.content}`,
  async validateInput(input, context) {
    const checked = await checkWritable(input, context);
    return 'error' in checked
      ? { ok: false, message: checked.error.message, code: checked.error.code }
      : { ok: true };
  },
  async call(input, context, _canUseTool, _onProgress, toolUseId) {
    const decided = takeCheckedPath(context.run, toolUseId);
    const checked = await checkWritable(input, context, decided);
    if ('error' in checked) throw checked.error;
    const { path, file } = checked;
    await commitText(path, input.content, file.exists ? file.format : undefined, context, decided);
    const structuredPatch = diffLines(file.exists ? file.text : '', input.content);
    const snippet = writeSnippet(input.content, structuredPatch);
    return {
      data: {
        type: file.exists ? 'update' : 'create',
        filePath: path,
        structuredPatch,
        lines: countLines(input.content),
        ...(snippet ? { snippet } : {}),
      },
    };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: `${
      output.type === 'create'
        ? `File created successfully at: ${output.filePath} (${output.lines} ${output.lines === 1 ? 'line' : 'lines'}).`
        : `The file ${output.filePath} has been updated (${output.lines} ${output.lines === 1 ? 'line' : 'lines'} written).`
    }${output.snippet ? ` Here's the result of running \`cat -n\` on a snippet of the ${output.type === 'create' ? 'new' : 'edited'} file:\n${output.snippet.text}` : ''}`,
  }),
  renderToolUse: (input) => `Write(${input.file_path ?? ''})`,
});
