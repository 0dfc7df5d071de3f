import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes, type Tool, lazySchema } from '../../core/index.ts';
import { replDefaultTimeoutMs, replMaxTimeoutMs, replPrompt, replToolName } from './repl.prompt.ts';
import { type ReplEvaluation, replSessionKey } from './repl-session.ts';

/** REPL's input. */
export const replInputSchema = lazySchema(() =>
  z.strictObject({
    code: z.string().min(1).describe('JavaScript to evaluate; top-level await is allowed'),
    timeout: z
      .number()
      .positive()
      .optional()
      .describe(`Timeout in milliseconds (default ${replDefaultTimeoutMs}, max ${replMaxTimeoutMs})`),
  }),
);

/** Parsed REPL input. */
export type ReplInput = z.infer<ReturnType<typeof replInputSchema>>;

const maxOutputChars = 30_000;

function renderEvaluation(output: ReplEvaluation): string {
  const parts: string[] = [];
  const printed = output.output.trimEnd();
  if (printed !== '') parts.push(printed);
  if (output.outputTruncated)
    parts.push(`[output cut at ${maxOutputChars.toLocaleString('en-US')} characters]`);
  if (output.error !== undefined) parts.push(output.error);
  else if (output.value !== undefined) parts.push(output.value);
  if (output.stopped === 'timeout') parts.push('<error>Evaluation timed out and was interrupted.</error>');
  if (output.stopped === 'aborted') parts.push('<error>Evaluation was aborted.</error>');
  if (output.restartNote !== undefined) parts.push(output.restartNote);
  return parts.length === 0 ? '(no output)' : parts.join('\n');
}

/** The REPL tool: a JavaScript context that lives for the session. */
export const ReplTool: Tool<ReplInput, ReplEvaluation> = buildTool<ReplInput, ReplEvaluation>({
  name: replToolName,
  searchHint: 'evaluate javascript in a persistent node context',
  get inputSchema() {
    return replInputSchema();
  },
  prompt: replPrompt,
  description: () => 'Evaluate JavaScript',
  maxResultSizeChars: 50_000,
  // Arbitrary code with the user's rights, on the host and outside the OS sandbox that confines Bash:
  // asked in every mode (bypassPermissions and auto included, never settled by the auto-mode
  // classifier); only a person or an explicit `REPL` allow rule approves it.
  async checkPermissions(input) {
    return {
      behavior: 'ask',
      message:
        "The REPL runs this JavaScript on the host, outside the OS sandbox, with the user's full rights. Approve it only if you would run it yourself; to allow the REPL without asking, add the rule REPL to permissions.allow.",
      preview: input.code,
      classifierApprovable: false,
      ruleApprovable: true,
    };
  },
  toAutoClassifierInput: (input) => input.code,
  async call(input, context) {
    const resources = context.run.resources;
    if (!resources) {
      throw new EfferentError(
        ErrorCodes.toolFailed,
        'The REPL needs a session (context.run.resources) to keep its state.',
      );
    }
    const timeoutMs = Math.min(input.timeout ?? replDefaultTimeoutMs, replMaxTimeoutMs);
    const data = await resources.get(replSessionKey).evaluate(input.code, {
      cwd: context.run.cwd,
      env: context.run.env,
      maxOutputChars,
      timeoutMs,
      signal: context.run.abortController.signal,
    });
    return { data };
  },
  mapResultToBlock: (output, toolUseId) => {
    const failed = output.error !== undefined || output.stopped !== undefined;
    return failed
      ? { type: 'tool_result', toolUseId, content: renderEvaluation(output), isError: true }
      : { type: 'tool_result', toolUseId, content: renderEvaluation(output) };
  },
});
