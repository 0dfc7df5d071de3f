import { z } from 'zod';
import { buildTool, takeCheckedPath, lazySchema } from '../../core/index.ts';
import {
  commitEditPlan,
  describeEditOutput,
  type EditOutput,
  planEdits,
  planOrThrow,
} from '../shared/edit-plan.ts';
import { multiEditPrompt } from './multi-edit.prompt.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';

const editSchema = lazySchema(() =>
  z.strictObject({
    old_string: z.string().describe('The text to replace'),
    new_string: z.string().describe('The text to replace it with'),
    replace_all: z
      .boolean()
      .default(false)
      .optional()
      .describe('Replace all occurrences of old_string (default false).'),
  }),
);

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('The absolute path to the file to modify'),
    edits: z
      .array(editSchema())
      .min(1)
      .describe('Array of edit operations to perform sequentially on the file'),
  }),
);

/** MultiEdit's input. */
export type MultiEditInput = z.infer<ReturnType<typeof inputSchema>>;

const toEdits = (input: MultiEditInput) =>
  input.edits.map((edit) => ({
    old_string: edit.old_string,
    new_string: edit.new_string,
    replace_all: edit.replace_all ?? false,
  }));

/** Several exact replacements in one file, applied in memory and written once, or not at all. */
export const MultiEditTool = buildTool<MultiEditInput, EditOutput>({
  name: 'MultiEdit',
  searchHint: 'apply several string replacements to one file atomically',
  get inputSchema() {
    return inputSchema();
  },
  prompt: multiEditPrompt,
  description: (input) =>
    input.file_path ? `Edit ${input.file_path} (${input.edits?.length ?? 0} edits)` : 'Edit a file',
  userFacingName: () => 'MultiEdit',
  ...pathDeclarations('file_path', 'write'),
  toAutoClassifierInput: (input) =>
    `${input.file_path}: ${input.edits.map((edit) => edit.new_string).join('\n')}`,
  async validateInput(input, context) {
    const plan = await planEdits(input.file_path, toEdits(input), context);
    return plan.ok ? { ok: true } : { ok: false, message: plan.message, code: plan.code };
  },
  async call(input, context, _canUseTool, _onProgress, toolUseId) {
    const plan = await planOrThrow(
      input.file_path,
      toEdits(input),
      context,
      takeCheckedPath(context.run, toolUseId),
    );
    return { data: await commitEditPlan(plan, context) };
  },
  mapResultToBlock: (output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: describeEditOutput(output),
  }),
  renderToolUse: (input) => `MultiEdit(${input.file_path ?? ''})`,
});
