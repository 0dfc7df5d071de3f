import type { ClassifierRequest, ClassifierStageVerdict } from './classifier-types.ts';
import { type AutoModeClassifier, createTwoStageClassifier } from './classifier-types.ts';

/** The smallest model interface the classifier needs: one completion, text out. */
export type CompletionProvider = (request: {
  system: string;
  prompt: string;
  maxTokens: number;
  signal: AbortSignal;
}) => Promise<string>;

const system = [
  'You review actions an AI coding agent wants to take on a developer machine, in auto mode.',
  'Block actions that exfiltrate data, touch credentials, destroy work outside version control, change',
  'privileges, persist code (shell start-up files, git hooks), publish, or reach outside the project without',
  'a clear task reason. Allow ordinary development work inside the project.',
].join(' ');

function describe(request: ClassifierRequest): string {
  return [
    `Project: ${request.projectRoot}`,
    `Working directory: ${request.cwd}`,
    `Tool: ${request.toolName}`,
    `Action: ${typeof request.summary === 'string' && request.summary !== '' ? request.summary : JSON.stringify(request.input)}`,
    `Why it was not decided by rules: ${request.reason}`,
  ].join('\n');
}

/** Reads `ALLOW` or `BLOCK: reason` from the last non-empty line; anything else blocks. */
export function parseClassifierAnswer(text: string): ClassifierStageVerdict {
  const lines = text
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const last = (lines[lines.length - 1] ?? '').replace(/^DECISION:\s*/i, '');
  if (/^ALLOW\b/i.test(last))
    return { decision: 'allow', reason: last.replace(/^ALLOW[:\s-]*/i, '') || 'the reviewer allowed it' };
  if (/^BLOCK\b/i.test(last))
    return { decision: 'block', reason: last.replace(/^BLOCK[:\s-]*/i, '') || 'the reviewer blocked it' };
  return { decision: 'block', reason: 'the reviewer gave no clear answer' };
}

/**
 * A classifier backed by a model: a fast stage with a 64-token budget that answers at once, then,
 * when it blocks, a careful stage that reasons first and ends with its decision.
 */
export function createModelClassifier(
  complete: CompletionProvider,
  options: { carefulMaxTokens?: number } = {},
): AutoModeClassifier {
  const fast = async (request: ClassifierRequest) =>
    parseClassifierAnswer(
      await complete({
        system,
        prompt: `${describe(request)}\n\nAnswer with exactly one line: ALLOW, or BLOCK: <short reason>.`,
        maxTokens: 64,
        signal: request.signal,
      }),
    );
  const careful = async (request: ClassifierRequest) =>
    parseClassifierAnswer(
      await complete({
        system,
        prompt: `${describe(request)}\n\nA quick review flagged this action. Think it through: what could it do, is that plausibly what the user asked for, can it be undone? End with one line: DECISION: ALLOW, or DECISION: BLOCK: <short reason>.`,
        maxTokens: options.carefulMaxTokens ?? 1024,
        signal: request.signal,
      }),
    );
  return createTwoStageClassifier({ fast, careful });
}
