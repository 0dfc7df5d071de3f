import type {
  AnyTool,
  DecisionTrace,
  PermissionBehavior,
  PermissionResolver,
  PermissionSuggestion,
  ToolUseContext,
} from '../core/index.ts';

/** The answer of `session.wouldAsk`: what the permission engine would decide, without asking anyone. */
export interface WouldAsk {
  /** `allow`: runs without a person; `deny`: refused; `ask`: a person (or a hook) must approve. */
  behavior: PermissionBehavior;
  /** True when `behavior` is `ask`: the call needs approval. */
  ask: boolean;
  /** For deny and ask: why, in a sentence. */
  message?: string;
  /** Rules an "always allow" answer would save. */
  suggestions?: PermissionSuggestion[];
  /** The steps that decided, in order (rules, mode, tool, safety checks). */
  trace: DecisionTrace;
}

interface WouldAskScope {
  tools: readonly AnyTool[];
  allTools: readonly AnyTool[];
  resolvePermission: PermissionResolver;
  context: ToolUseContext;
}

let queries = 0;

/**
 * A pure permission query: finds the tool, checks the input against its schema, and runs the
 * permission engine in dry-run mode (no prompt, no PermissionRequest hook, no classifier, nothing
 * saved). PreToolUse hooks, which run programs, are not consulted.
 */
export async function wouldAsk(
  scope: WouldAskScope,
  name: string,
  input: Record<string, unknown>,
): Promise<WouldAsk> {
  const tool =
    scope.tools.find((candidate) => candidate.name === name) ??
    scope.tools.find((candidate) => candidate.aliases.includes(name));
  if (!tool) {
    return {
      behavior: 'deny',
      ask: false,
      message: `No tool named ${name} is in this session's pool; the call would fail before any permission check.`,
      trace: [{ stage: 'resolver', outcome: 'deny', detail: `${name} is not in the tool pool.` }],
    };
  }
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) {
    return {
      behavior: 'deny',
      ask: false,
      message: `The input does not match ${tool.name}'s schema (${parsed.error.issues.map((issue) => issue.message).join('; ')}); the call would fail before any permission check.`,
      trace: [{ stage: 'resolver', outcome: 'deny', detail: 'The input failed schema validation.' }],
    };
  }
  queries += 1;
  const decision = await scope.resolvePermission({
    tool,
    input: parsed.data as Record<string, unknown>,
    toolUseId: `would_ask_${queries}`,
    context: scope.context,
    dryRun: true,
  });
  const answer: WouldAsk = {
    behavior: decision.behavior,
    ask: decision.behavior === 'ask',
    trace: decision.trace,
  };
  if (decision.message !== undefined) answer.message = decision.message;
  if (decision.suggestions !== undefined) answer.suggestions = decision.suggestions;
  return answer;
}
