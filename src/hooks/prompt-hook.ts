import {
  type ModelProvider,
  type SessionResource,
  type SessionResourceKey,
  userMessage,
} from '../core/index.ts';
import { type HookResult, unansweredHookResult } from './hook-output.ts';
import type { HookEvent, HookInput } from './types.ts';

/**
 * Claude Code's `prompt` hooks: the hook's `prompt`, with `$ARGUMENTS` replaced by the hook input as
 * JSON (or the input appended when the prompt has no `$ARGUMENTS`), goes to a model, which answers
 * `{"ok": true}` or `{"ok": false, "reason": "…"}`. efferent asks the session's own provider.
 */

/** A `prompt` handler as settings files write it. */
export interface PromptHookHandler {
  type: 'prompt';
  prompt: string;
  /** Claude Code picks a small model with it; efferent uses the session's provider and ignores it. */
  model?: string;
  /** Seconds; default {@link defaultPromptHookTimeoutSeconds}. */
  timeout?: number;
}

/** Claude Code's default timeout of a prompt hook, in seconds. */
export const defaultPromptHookTimeoutSeconds = 30;

/** Holds the provider of the run in progress, so prompt hooks can reach it. */
export interface PromptHookProviderSlot extends SessionResource {
  provider: ModelProvider | undefined;
}

/** The session resource the agent loop fills with its provider when a run starts. */
export const promptHookProviderKey: SessionResourceKey<PromptHookProviderSlot> = {
  name: 'prompt-hook-provider',
  create: () => ({
    provider: undefined,
    dispose() {
      this.provider = undefined;
    },
  }),
};

/** The text sent to the model: `$ARGUMENTS` replaced by the input JSON, or the JSON appended. */
export function promptHookText(prompt: string, input: HookInput): string {
  const json = JSON.stringify(input);
  return prompt.includes('$ARGUMENTS')
    ? prompt.replaceAll('$ARGUMENTS', json)
    : `${prompt}\n\nHook input:\n${json}`;
}

const systemPrompt = `You decide for a hook of a coding agent. Read the instructions and the hook input in the user's message and answer with one JSON object and nothing else: {"ok": true} when the action may proceed, or {"ok": false, "reason": "why, in one sentence"} when it may not.`;

/** The model's verdict, or why its answer could not be read. */
export type PromptHookAnswer = { ok: boolean; reason?: string } | { unreadable: string };

/**
 * Reads the model's answer: the first JSON object in the text (models sometimes wrap it in a code
 * fence). `ok` is Claude Code's current field; the older `decision: "approve" | "block"` is read too.
 */
export function parsePromptHookAnswer(text: string): PromptHookAnswer {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start)
    return { unreadable: `the model did not answer with JSON: ${text.slice(0, 200)}` };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (error) {
    return { unreadable: `the model's JSON did not parse: ${(error as Error).message}` };
  }
  const answer = value as { ok?: unknown; decision?: unknown; reason?: unknown };
  const ok =
    typeof answer.ok === 'boolean'
      ? answer.ok
      : answer.decision === 'approve'
        ? true
        : answer.decision === 'block'
          ? false
          : undefined;
  if (ok === undefined) return { unreadable: 'the model answered JSON without a boolean "ok"' };
  return typeof answer.reason === 'string' && answer.reason !== '' ? { ok, reason: answer.reason } : { ok };
}

/**
 * What a verdict means for the event: `ok: false` denies a tool call (PreToolUse, PermissionRequest)
 * and blocks elsewhere (a prompt, a stop — the reason goes to the model); `ok: true` approves a
 * PermissionRequest and otherwise lets the action go on as the rest of efferent decides (a yes from
 * a model never skips a permission rule or prompt).
 */
export function promptHookResult(
  event: HookEvent,
  hook: string,
  answer: { ok: boolean; reason?: string },
): HookResult {
  const reason = answer.reason ?? `the prompt hook ${hook} said no`;
  if (event === 'PermissionRequest') {
    return {
      hook,
      output: {
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: answer.ok ? { behavior: 'allow' } : { behavior: 'deny', message: reason },
        },
      },
    };
  }
  if (answer.ok) return { hook };
  if (event === 'PreToolUse') {
    return {
      hook,
      output: {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: reason,
        },
      },
    };
  }
  return { hook, output: { decision: 'block', reason } };
}

/**
 * What a prompt hook that could not decide (no model, a failed request, an unreadable answer) means:
 * on PreToolUse the call is asked about — a guard that cannot answer never lets a call through
 * unasked — elsewhere a non-blocking error.
 */
export function undecidedPromptHookResult(event: HookEvent, hook: string, message: string): HookResult {
  return unansweredHookResult(event, hook, message, {
    decision: 'ask',
    reason: `${message} The call needs your approval instead.`,
  });
}

/** Asks the provider; resolves with its answer text, `'timeout'`, or throws the provider's error. */
export async function askPromptHookModel(
  provider: ModelProvider,
  text: string,
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<string | 'timeout'> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let answer = '';
  try {
    for await (const event of provider.stream({
      systemPrompt,
      messages: [userMessage(text)],
      tools: [],
      maxTokens: 1024,
      isNonInteractive: true,
      signal,
    })) {
      if (event.type === 'text_delta') answer += event.text;
      else if (event.type === 'error') {
        if (timeout.aborted) return 'timeout';
        throw new Error(event.message);
      }
    }
  } catch (error) {
    if (timeout.aborted) return 'timeout';
    throw error;
  }
  return timeout.aborted ? 'timeout' : answer;
}
