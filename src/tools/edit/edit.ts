import { z } from 'zod';
import { buildTool, takeCheckedPath, lazySchema } from '../../core/index.ts';
import {
  commitEditPlan,
  describeEditOutput,
  type EditOutput,
  planEdits,
  planOrThrow,
} from '../shared/edit-plan.ts';
import { editPrompt } from './edit.prompt.ts';
import { pathDeclarations } from '../shared/path-declarations.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('The absolute path to the file to modify'),
    old_string: z.string().describe('The text to replace'),
    new_string: z.string().describe('The text to replace it with (must be different from old_string)'),
    replace_all: z
      .boolean()
      .default(false)
      .optional()
      .describe('Replace all occurrences of old_string (default false)'),
  }),
);

/** Edit's input. */
export type EditInput = z.infer<ReturnType<typeof inputSchema>>;

const toEdit = (input: EditInput) => ({
  old_string: input.old_string,
  new_string: input.new_string,
  replace_all: input.replace_all ?? false,
});

/** Exact string replacement in one file, refused when the model's view of the file is stale. */
export const EditTool = buildTool<EditInput, EditOutput>({
  name: 'Edit',
  searchHint: 'modify file contents in place by exact string replacement',
  get inputSchema() {
    return inputSchema();
  },
  prompt: editPrompt,
  description: (input) => (input.file_path ? `Edit ${input.file_path}` : 'Edit a file'),
  userFacingName: () => 'Edit',
  ...pathDeclarations('file_path', 'write'),
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.new_string}`,
  async validateInput(input, context) {
    const plan = await planEdits(input.file_path, [toEdit(input)], context);
    return plan.ok ? { ok: true } : { ok: false, message: plan.message, code: plan.code };
  },
  async call(input, context, _canUseTool, _onProgress, toolUseId) {
    // Checked again here: the file may have changed between validation and this call.
    const plan = await planOrThrow(
      input.file_path,
      [toEdit(input)],
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
  renderToolUse: (input) => `Edit(${input.file_path ?? ''})`,
});
