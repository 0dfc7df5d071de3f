import type { ToolUseContext } from './context.ts';
import type { PreparedCall, PreparedShellAnalysis } from './prepared-call.ts';
import type { AnyTool } from './tool.ts';

/**
 * Permission vocabulary shared by tools, the pipeline and the permission engine.
 * The engine itself lives in `src/permissions`; tools and the pipeline only speak these types.
 */

/** How the permission system treats calls that no rule decides. */
export type PermissionMode =
  | 'default'
  | 'acceptEdits'
  | 'plan'
  | 'auto'
  | 'dontAsk'
  | 'bypassPermissions'
  | 'bubble';

/** Every mode, in the order the CLI lists them. */
export const permissionModes: readonly PermissionMode[] = [
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
  'bubble',
];

/** A final answer. `ask` means a person (or a classifier) still has to decide. */
export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/** Where a rule came from, highest precedence first. */
export type RuleSource =
  | 'policySettings'
  | 'cliArg'
  | 'localSettings'
  | 'projectSettings'
  | 'userSettings'
  | 'session';

/** One step of a decision's explanation. */
export interface TraceStep {
  /** Which part of the chain spoke. */
  stage: 'hook' | 'rule' | 'tool' | 'safety' | 'mode' | 'callback' | 'classifier' | 'resolver' | 'analysis';
  /** What that part concluded; `passthrough` means it had no opinion. */
  outcome: PermissionBehavior | 'passthrough';
  /** One sentence a reviewer can read. */
  detail: string;
  rule?: string;
  source?: RuleSource | string;
  /** For safety checks: whether an auto-mode classifier may still approve. */
  classifierApprovable?: boolean;
}

/** Why a call was allowed, denied or asked: the steps in the order they ran. */
export type DecisionTrace = TraceStep[];

/** What a tool's own `checkPermissions` says. `passthrough` = no tool-specific objection. */
export type ToolPermissionResult =
  | { behavior: 'passthrough'; message?: string }
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; reason?: string }
  | { behavior: 'deny'; message: string; reason?: string }
  | {
      behavior: 'ask';
      message: string;
      /** Input to run if a person approves (e.g. the exact result of a previewed sed edit). */
      updatedInput?: Record<string, unknown>;
      /** What approving would do, shown in the prompt (e.g. a diff). */
      preview?: string;
      /** A safety check asked; `false` means only a person may approve. */
      classifierApprovable?: boolean;
      /** An explicit allow rule naming the whole tool (`REPL`) settles this ask; nothing else does but a person. */
      ruleApprovable?: boolean;
      suggestions?: PermissionSuggestion[];
    };

/** A rule the user could add to stop being asked. */
export interface PermissionSuggestion {
  toolName: string;
  ruleContent?: string;
  behavior: PermissionBehavior;
}

/** The resolver's final answer for one call. */
export interface PermissionDecision {
  behavior: PermissionBehavior;
  /** Input to run instead of the requested one (from a hook or a prompt). */
  updatedInput?: Record<string, unknown>;
  /** For deny and ask: the sentence the model gets. */
  message?: string;
  suggestions?: PermissionSuggestion[];
  trace: DecisionTrace;
  /**
   * For an ask: why. `default` is only "no rule allows it"; the others are an ask rule, a safety
   * check, a command the analysis could not vouch for, or a path outside the working directories.
   * Absent when the ask came from elsewhere (a hook): treat it as not `default`.
   */
  askKind?: 'rule' | 'safety' | 'analysis' | 'workspace' | 'default';
}

/**
 * What a tool tells the permission engine it will touch, so rules can match it without the engine
 * knowing the tool by name.
 */
export type PermissionTarget =
  | {
      kind: 'command';
      command: string;
      shell: 'bash' | 'powershell';
      /** The call's one analysis of `command`, when it was prepared (see PreparedCall). */
      analysis?: PreparedShellAnalysis;
    }
  | { kind: 'path'; path: string; access: 'read' | 'write' }
  | { kind: 'url'; url: string }
  | { kind: 'agent'; agentType: string }
  | { kind: 'skill'; skill: string }
  | { kind: 'none' };

/** A hook's verdict on a call, already merged across hooks (deny > defer > ask > allow). */
export interface HookPermissionDecision {
  behavior: PermissionBehavior;
  reason?: string;
  /** Which hook said it, for the trace. */
  hook?: string;
}

/** One call put to the permission resolver. `input` is parsed and already rewritten by hooks. */
export interface PermissionRequest {
  tool: AnyTool;
  input: Record<string, unknown>;
  toolUseId: string;
  context: ToolUseContext;
  hookDecision?: HookPermissionDecision;
  /** The call as prepared by the pipeline; `tool` is then its view (prepared answers for `input`). */
  prepared?: PreparedCall;
  /**
   * Evaluate only: rules, modes, the tool's own check and the safety checks decide, and an `ask` is
   * returned as it is — no PermissionRequest hook, classifier or prompt runs, and nothing is saved.
   */
  dryRun?: boolean;
}

/** The permission stage of the pipeline: rules, modes, prompts and classifier behind one call. */
export type PermissionResolver = (request: PermissionRequest) => Promise<PermissionDecision>;

/** A question put to a person: may this call run? */
export interface PermissionPrompt {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  agentId: string;
  /** Why the system asks, in one sentence. */
  message: string;
  /** What approving would do (e.g. a diff). */
  preview?: string;
  /** Rules that "always allow" would save. */
  suggestions: PermissionSuggestion[];
}

/**
 * A person's answer to a {@link PermissionPrompt}:
 * - `allow-once` runs this call only;
 * - `allow-session` also adds the prompt's `suggestions` as rules for the rest of the session;
 * - `allow-always` also saves them (`.efferent/settings.local.json`, or the session's `persistRules`);
 * - `deny` refuses; `feedback` is passed to the model with the refusal.
 * `updatedInput` runs the call with a corrected input instead of the requested one.
 */
export type PermissionPromptAnswer =
  | { choice: 'allow-once' | 'allow-session' | 'allow-always'; updatedInput?: Record<string, unknown> }
  | { choice: 'deny'; feedback?: string };

/** The interactive prompt a UI provides; absent in headless use (asks then resolve without a person). */
export type AskUser = (prompt: PermissionPrompt, signal: AbortSignal) => Promise<PermissionPromptAnswer>;
