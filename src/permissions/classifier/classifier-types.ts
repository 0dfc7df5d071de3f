/**
 * The auto-mode classifier: a reviewer that decides calls no rule settled. It has two stages: a
 * fast one that lets the obviously fine through, and a careful one consulted only when the fast
 * stage would block.
 */

/** What the classifier is shown about one call (never tool results). */
export interface ClassifierRequest {
  toolName: string;
  input: Record<string, unknown>;
  /** The tool's `toAutoClassifierInput(input)`: what it considers relevant. */
  summary: unknown;
  /** Why the permission engine could not decide by itself. */
  reason: string;
  cwd: string;
  projectRoot: string;
  signal: AbortSignal;
}

/**
 * A stage's answer. `ask` means the reviewer cannot vouch for the call either way: a person decides
 * (the rule-based reviewer answers it for everything, since it can prove nothing beyond the engine).
 */
export interface ClassifierStageVerdict {
  decision: 'allow' | 'block' | 'ask';
  reason: string;
}

/** The final answer, naming the stage that gave it. */
export interface ClassifierVerdict extends ClassifierStageVerdict {
  stage: 'fast' | 'careful';
}

/** One stage of the classifier. */
export type ClassifierStage = (request: ClassifierRequest) => Promise<ClassifierStageVerdict>;

/** What the resolver calls. */
export interface AutoModeClassifier {
  classify(request: ClassifierRequest): Promise<ClassifierVerdict>;
}

/** Builds a classifier from a fast and a careful stage: careful runs only when fast does not allow. */
export function createTwoStageClassifier(stages: {
  fast: ClassifierStage;
  careful: ClassifierStage;
}): AutoModeClassifier {
  return {
    async classify(request) {
      const fast = await stages.fast(request);
      if (fast.decision === 'allow') return { ...fast, stage: 'fast' };
      const careful = await stages.careful(request);
      return { ...careful, stage: 'careful' };
    },
  };
}

/** After this many blocks in a row, auto mode falls back to prompting. */
export const maxConsecutiveClassifierBlocks = 3;
/** After this many blocks in a session, auto mode falls back to prompting. */
export const maxTotalClassifierBlocks = 20;
