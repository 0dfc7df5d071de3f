import { rm } from 'node:fs/promises';
import type { ImageMediaType, ToolResultBlock } from '../../../core/index.ts';
import {
  detectImageType,
  fileSize,
  readBytes,
  readTextHead,
  readTextTail,
  truncateRegularFile,
} from './output-files.ts';

/** What a shell tool call (Bash, PowerShell) returns. */
export interface ShellOutput {
  /** Standard output (the first part when it was too large; base64 when `isImage`). */
  stdout: string;
  stderr: string;
  /** Null when the command was killed by a signal, moved to the background, or never ran. */
  exitCode: number | null;
  /** True when efferent stopped the command (abort, timeout, output limit). */
  interrupted: boolean;
  isImage: boolean;
  /** Set when the command keeps running as a background task. */
  backgroundTaskId?: string;
  /** Set when the working directory was reset or could not be used. */
  cwdNote?: string;
  /** True when the exit status means failure (after the semantic table). */
  isError?: boolean;
  /** What a non-zero status that is not a failure means (`No matches found`). */
  returnCodeInterpretation?: string;
  imageMediaType?: ImageMediaType;
  /** Where the full output is when it was too large to show inline. */
  outputPath?: string;
  /** Where the full stderr is when it was too large to show inline (the file is kept). */
  stderrPath?: string;
  /** Size of the full stdout in bytes, when it was too large. */
  outputBytes?: number;
  /** The end of a large stdout (the start is in `stdout`). */
  stdoutTail?: string;
  /** Notes for the model: sandbox state, timeouts, output limit. */
  notes?: string[];
}

/** Inline output limit in characters (the reference's BASH_MAX_OUTPUT_LENGTH default). */
export const defaultMaxInlineChars = 30_000;
/** Above this a persisted output file is cut (64 MiB, as the reference). */
export const maxPersistedBytes = 64 * 1024 * 1024;
/** Images above this are not sent inline (the provider limit is 5 MB of base64). */
export const maxInlineImageBytes = 3_750_000;

const previewChars = 2_000;
const failureTailChars = 4_000;

/** Deletes a finished command's output files unless the result names them (large output kept on disk). */
export async function removeUnreferencedOutput(
  stdoutPath: string,
  stderrPath: string,
  output: Pick<ShellOutput, 'outputPath' | 'stderrPath'>,
): Promise<void> {
  await Promise.all([
    output.outputPath === undefined ? rm(stdoutPath, { force: true }) : undefined,
    output.stderrPath === undefined ? rm(stderrPath, { force: true }) : undefined,
  ]);
}

/** Reads a finished command's output files into the fields of {@link ShellOutput}. */
export async function collectOutput(
  stdoutPath: string,
  stderrPath: string,
  maxInlineChars: number,
): Promise<
  Pick<
    ShellOutput,
    | 'stdout'
    | 'stderr'
    | 'isImage'
    | 'imageMediaType'
    | 'outputPath'
    | 'outputBytes'
    | 'stdoutTail'
    | 'stderrPath'
  >
> {
  const size = await fileSize(stdoutPath);
  const stderr = await readTextHead(stderrPath, maxInlineChars);
  const stderrText = stderr.truncated
    ? `${stderr.text}\n[stderr truncated; full text in ${stderrPath}]`
    : stderr.text;
  // The note above names the file, so it must outlive the call.
  const keptStderr = stderr.truncated ? { stderrPath } : {};
  const head = await readBytes(stdoutPath, 0, 16);
  const imageType = detectImageType(head);
  if (imageType && size <= maxInlineImageBytes) {
    const bytes = await readBytes(stdoutPath, 0, size);
    return {
      stdout: bytes.toString('base64'),
      stderr: stderrText,
      isImage: true,
      imageMediaType: imageType,
      ...keptStderr,
    };
  }
  if (imageType) {
    return {
      stdout: `[${imageType} output of ${size.toLocaleString('en-US')} bytes is too large to show; save it to a file and view a smaller version]`,
      stderr: stderrText,
      isImage: false,
      ...keptStderr,
    };
  }
  const stdout = await readTextHead(stdoutPath, maxInlineChars);
  if (!stdout.truncated) return { stdout: stdout.text, stderr: stderrText, isImage: false, ...keptStderr };
  if (size > maxPersistedBytes) await truncateRegularFile(stdoutPath, maxPersistedBytes).catch(() => {});
  return {
    stdout: stdout.text,
    stderr: stderrText,
    isImage: false,
    outputPath: stdoutPath,
    outputBytes: size,
    stdoutTail: await readTextTail(stdoutPath, failureTailChars),
    ...keptStderr,
  };
}

/** The tool_result the model reads: stdout, then stderr, then notes and the exit status. */
export function shellResultBlock(output: ShellOutput, toolUseId: string, toolName = 'Bash'): ToolResultBlock {
  const isError = output.interrupted || output.isError === true;
  if (output.isImage && output.imageMediaType) {
    return {
      type: 'tool_result',
      toolUseId,
      content: [
        { type: 'image', source: { type: 'base64', mediaType: output.imageMediaType, data: output.stdout } },
      ],
    };
  }
  const parts: string[] = [];
  const stdout = output.stdout.replace(/^(\s*\n)+/, '').trimEnd();
  if (output.outputPath !== undefined) parts.push(persistedPreview(output, stdout, isError));
  else if (stdout !== '') parts.push(stdout);
  const stderr = output.stderr.trim();
  if (stderr !== '') parts.push(stderr);
  if (output.isError && output.exitCode !== null && output.exitCode !== 0)
    parts.push(`Exit code ${output.exitCode}`);
  if (output.returnCodeInterpretation) parts.push(`(${output.returnCodeInterpretation})`);
  if (output.interrupted && output.backgroundTaskId === undefined) {
    parts.push('<error>Command was aborted before completion</error>');
  }
  for (const note of output.notes ?? []) parts.push(note);
  if (output.cwdNote) parts.push(output.cwdNote);
  const content = parts.join('\n');
  const block: ToolResultBlock = {
    type: 'tool_result',
    toolUseId,
    content: content === '' ? `(${toolName} completed with no output)` : content,
  };
  if (isError) block.isError = true;
  return block;
}

function persistedPreview(output: ShellOutput, stdout: string, isError: boolean): string {
  const size = output.outputBytes ?? 0;
  const head = stdout.slice(0, previewChars);
  // For a failure the end of the output (the error) matters most, so show it too.
  const tail = isError && output.stdoutTail ? `\n...\n${output.stdoutTail.trimEnd()}` : '\n...';
  return [
    '<persisted-output>',
    `Output too large (${size.toLocaleString('en-US')} bytes). Full output saved to: ${output.outputPath}`,
    'Read that file (with offset and limit) or search it with Grep to see the rest.',
    '',
    `Preview:\n${head}${tail}`,
    '</persisted-output>',
  ].join('\n');
}
