import type { AnyTool, ToolUseContext, TraceStep } from '../../core/index.ts';
import { errorMessage } from '../../core/index.ts';
import {
  type AutoModeClassifier,
  maxConsecutiveClassifierBlocks,
  maxTotalClassifierBlocks,
} from '../classifier/classifier-types.ts';

/** The classifier's effect on one call: allow, deny, or hand over to a prompt. */
export interface ClassifierStepResult {
  behavior: 'allow' | 'deny' | 'prompt';
  message?: string;
  trace: TraceStep[];
}

/**
 * Runs the auto-mode classifier with denial tracking in `context.run.denialTracking`: an allow
 * resets the consecutive count; after 3 consecutive or 20 total blocks prompting takes over.
 */
export async function runClassifier(
  classifier: AutoModeClassifier,
  call: { tool: AnyTool; input: Record<string, unknown>; context: ToolUseContext; reason: string },
): Promise<ClassifierStepResult> {
  const tracking = call.context.run.denialTracking;
  if (tracking.consecutive >= maxConsecutiveClassifierBlocks || tracking.total >= maxTotalClassifierBlocks) {
    return {
      behavior: 'prompt',
      trace: [
        {
          stage: 'classifier',
          outcome: 'passthrough',
          detail: `The classifier blocked ${tracking.consecutive} call(s) in a row and ${tracking.total} in total; asking instead.`,
        },
      ],
    };
  }
  let summary: unknown;
  try {
    summary = call.tool.toAutoClassifierInput(call.input);
  } catch {
    summary = '';
  }
  try {
    const verdict = await classifier.classify({
      toolName: call.tool.name,
      input: call.input,
      summary,
      reason: call.reason,
      cwd: call.context.run.cwd,
      projectRoot: call.context.run.projectRoot,
      signal: call.context.run.abortController.signal,
    });
    if (verdict.decision === 'allow') {
      tracking.consecutive = 0;
      return {
        behavior: 'allow',
        trace: [
          {
            stage: 'classifier',
            outcome: 'allow',
            detail: `The auto-mode classifier (${verdict.stage} stage) allowed it: ${verdict.reason}.`,
          },
        ],
      };
    }
    if (verdict.decision === 'ask') {
      return {
        behavior: 'prompt',
        trace: [
          {
            stage: 'classifier',
            outcome: 'passthrough',
            detail: `The auto-mode classifier (${verdict.stage} stage) could not vouch for it: ${verdict.reason}; asking instead.`,
          },
        ],
      };
    }
    tracking.consecutive++;
    tracking.total++;
    const step: TraceStep = {
      stage: 'classifier',
      outcome: 'deny',
      detail: `The auto-mode classifier (${verdict.stage} stage) blocked it: ${verdict.reason}.`,
    };
    if (
      tracking.consecutive >= maxConsecutiveClassifierBlocks ||
      tracking.total >= maxTotalClassifierBlocks
    ) {
      return {
        behavior: 'prompt',
        trace: [
          step,
          {
            stage: 'classifier',
            outcome: 'passthrough',
            detail: 'Too many classifier blocks; asking instead.',
          },
        ],
      };
    }
    return {
      behavior: 'deny',
      message: `Auto mode blocked this call: ${verdict.reason}. Do not retry it; choose a safer approach or ask the user to run it.`,
      trace: [step],
    };
  } catch (error) {
    return {
      behavior: 'prompt',
      trace: [
        {
          stage: 'classifier',
          outcome: 'passthrough',
          detail: `The classifier failed (${errorMessage(error)}); asking instead.`,
        },
      ],
    };
  }
}
