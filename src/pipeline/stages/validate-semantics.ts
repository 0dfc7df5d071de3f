import {
  type AnyTool,
  EfferentError,
  ErrorCodes,
  errorMessage,
  type ToolUseContext,
} from '../../core/index.ts';
import { type StageResult, toolUseError } from '../types.ts';

/** Step 4: the tool's own semantic checks (`validateInput`), beyond what the schema can express. */
export async function validateSemantics(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Promise<StageResult<undefined>> {
  let verdict: Awaited<ReturnType<AnyTool['validateInput']>>;
  try {
    verdict = await tool.validateInput(input, context);
  } catch (error) {
    verdict = {
      ok: false,
      message: `${tool.name} could not check its input: ${errorMessage(error)}`,
      code: 'threw',
    };
  }
  if (verdict.ok) return { ok: true, value: undefined };
  return {
    ok: false,
    failure: {
      message: toolUseError(verdict.message),
      outcome: 'validation_failed',
      error: new EfferentError(
        ErrorCodes.validationFailed,
        `validateInput failed with code ${String(verdict.code)}`,
      ),
    },
  };
}
