import type {
  PermissionDecision,
  PermissionPrompt,
  PermissionPromptAnswer,
  PermissionRequest,
  PermissionSuggestion,
  TraceStep,
} from '../../core/index.ts';
import { errorMessage } from '../../core/index.ts';
import { unapprovedMessage } from '../decide/describe-call.ts';
import type { Evaluation } from '../decide/evaluate-permission.ts';
import { maxRulesPerAnswer } from '../settings/persist-rules.ts';
import { runClassifier } from './classifier-step.ts';
import type { PermissionResolverOptions } from './resolver-options.ts';
import { type SessionGrants, suggestionText } from './session-grants.ts';

/** A call the decision asked about, on its way through the approvers. */
export interface PendingApproval {
  request: PermissionRequest;
  /** The decision's ask. */
  first: Evaluation;
  /** Grows as approvers pass the call on (the classifier's steps). */
  trace: TraceStep[];
  reason: string;
  suggestions: PermissionSuggestion[];
  /** The input to approve: the tool's rewrite when it made one. */
  input: Record<string, unknown>;
  /** The ask message, for hooks and prompts. */
  message: string;
}

/** What approvers share: the resolver's options, its session grants, and the decision to re-run. */
export interface ApprovalEnvironment {
  options: PermissionResolverOptions;
  grants: SessionGrants;
  evaluate: (request: PermissionRequest, input: Record<string, unknown>) => Promise<Evaluation>;
  /** Saves "always allow" rules for the project. */
  persist: (projectRoot: string, rules: string[]) => Promise<string[]>;
}

/** One approver: a decision, or undefined to pass the call to the next. */
export type Approver = (
  pending: PendingApproval,
  environment: ApprovalEnvironment,
) => Promise<PermissionDecision | undefined>;

export function pendingApproval(request: PermissionRequest, first: Evaluation): PendingApproval {
  const reason = first.reason ?? 'it needs approval';
  return {
    request,
    first,
    trace: [...first.trace],
    reason,
    suggestions: first.suggestions ?? [],
    input: first.updatedInput ?? request.input,
    message: first.message ?? reason,
  };
}

/**
 * Only an ask that merely lacks a rule ('default') is the classifier's to settle, in auto mode.
 * Rule asks, safety checks (protected paths, critical removals), analysis failures (too complex to
 * check) and workspace asks (reads or writes outside the working directories) need a person or a rule.
 */
export const autoModeClassifier: Approver = async (pending, { options }) => {
  const { request, first } = pending;
  const { tool, context } = request;
  if (context.run.permissionMode !== 'auto' || !options.classifier) return undefined;
  if (first.askKind !== 'default' || first.classifierApprovable === false) return undefined;
  const classified = await runClassifier(options.classifier, {
    tool,
    input: pending.input,
    context,
    reason: pending.reason,
  });
  pending.trace.push(...classified.trace);
  if (classified.behavior === 'prompt') return undefined;
  return {
    behavior: classified.behavior,
    ...(classified.message ? { message: classified.message } : {}),
    trace: pending.trace,
  };
};

/** The parent agent's prompt in bubble mode, else the user's. */
function prompterFor(pending: PendingApproval, options: PermissionResolverOptions) {
  const bubbling = pending.request.context.run.permissionMode === 'bubble' && options.parentAsk !== undefined;
  return {
    prompter: bubbling ? options.parentAsk : options.askUser,
    who: bubbling ? 'the parent agent' : 'the user',
  };
}

/** Nobody to ask: the call stays unapproved, with the reason and what would allow it. */
export const nobodyToAsk = ({
  request,
  first,
  reason,
  trace,
  suggestions,
}: PendingApproval): PermissionDecision => ({
  behavior: 'ask',
  message: unapprovedMessage(
    first.call ?? `use ${request.tool.name}`,
    reason,
    'no one is available to approve it',
  ),
  trace,
  ...(suggestions.length ? { suggestions } : {}),
  ...(first.askKind ? { askKind: first.askKind } : {}),
});

/** Asks the parent agent (bubble mode) or the user; "allow for the session" and "always" add rules. */
export const askPerson: Approver = async (pending, environment) => {
  const { request, first, suggestions, input } = pending;
  const { prompter, who } = prompterFor(pending, environment.options);
  if (!prompter) return undefined;
  const prompt: PermissionPrompt = {
    toolName: request.tool.name,
    input,
    toolUseId: request.toolUseId,
    agentId: request.context.agent.agentId,
    message: pending.message,
    suggestions,
    ...(first.preview !== undefined ? { preview: first.preview } : {}),
  };
  let answer: PermissionPromptAnswer;
  try {
    answer = await prompter(prompt, request.context.run.abortController.signal);
  } catch (error) {
    return {
      behavior: 'deny',
      message: `The permission prompt failed (${errorMessage(error)}). Do not retry; ask the user.`,
      trace: pending.trace,
    };
  }
  return answered(pending, answer, who, environment);
};

async function answered(
  pending: PendingApproval,
  answer: PermissionPromptAnswer,
  who: string,
  { grants, persist }: ApprovalEnvironment,
): Promise<PermissionDecision> {
  const { trace, first, request } = pending;
  if (answer.choice === 'deny') {
    return {
      behavior: 'deny',
      message: `The user denied this call${answer.feedback ? `: ${answer.feedback}` : '.'} Do not retry it; follow the user's feedback or choose another approach.`,
      trace: [...trace, { stage: 'callback', outcome: 'deny', detail: `${who} denied the call.` }],
    };
  }
  const saved = pending.suggestions.slice(0, maxRulesPerAnswer);
  if (answer.choice === 'allow-session' || answer.choice === 'allow-always')
    grants.addRules(saved, request.context.run.cwd);
  if (answer.choice === 'allow-always' && saved.length > 0)
    await persist(request.context.run.projectRoot, saved.map(suggestionText));
  const updatedInput = answer.updatedInput ?? first.updatedInput;
  return {
    behavior: 'allow',
    ...(updatedInput ? { updatedInput } : {}),
    trace: [
      ...trace,
      { stage: 'callback', outcome: 'allow', detail: `${who} allowed the call (${answer.choice}).` },
    ],
  };
}
