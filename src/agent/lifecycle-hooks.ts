import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ContentBlock, systemReminder, type ToolUseContext, textBlock } from '../core/index.ts';
import { createHookInput, type HookRunner } from '../hooks/index.ts';
import type { LoadedSettings } from '../permissions/index.ts';

/**
 * Claude Code's session lifecycle hooks around the agent loop: SessionStart (its stdout becomes
 * context; `CLAUDE_ENV_FILE` exports reach later tools), SubagentStart (instead of SessionStart when
 * the loop runs a subagent's context; its `additionalContext` reaches the subagent), UserPromptSubmit
 * (may block the prompt or add context) and Stop (may make the agent continue, with
 * `stop_hook_active` set on the next stop).
 */

/** What the hooks before a prompt decided. */
export interface PromptHooksResult {
  /** The prompt with any context the hooks added. */
  prompt: ContentBlock[];
  /** Set when a hook blocked the prompt (or stopped the run): the run ends before the model is asked. */
  blocked?: string;
}

/** Where SessionStart hooks may write `export NAME=value` lines for the session's tools. */
export function hookEnvFile(context: ToolUseContext): string {
  return join(context.run.sessionDir, 'hook-env.sh');
}

/** Reads `export NAME=value` (or `NAME=value`) lines a SessionStart hook wrote; quotes are removed. */
export async function readHookEnvFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return {};
  }
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match?.[1]) continue;
    let value = (match[2] ?? '').trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]))
      value = value.slice(1, -1);
    env[match[1]] = value;
  }
  return env;
}

/** Runs SessionStart (on a conversation's first prompt) and UserPromptSubmit for one prompt. */
export async function runPromptHooks(
  hooks: HookRunner,
  context: ToolUseContext,
  prompt: string | ContentBlock[],
  options: { sessionStart?: 'startup' | 'resume' | 'clear' | 'compact'; signal: AbortSignal },
): Promise<PromptHooksResult> {
  const blocks: ContentBlock[] = typeof prompt === 'string' ? [textBlock(prompt)] : [...prompt];
  const extra: string[] = [];
  const source = options.sessionStart;
  const agent = context.agent;
  if (source && agent.depth > 0) {
    // A subagent's first prompt: SubagentStart (matched on the agent type), not SessionStart.
    const agentType = agent.agentType ?? '';
    if (hooks.hasHooks('SubagentStart', agentType)) {
      const input = createHookInput('SubagentStart', context, {
        agent_id: agent.agentId,
        agent_type: agentType,
      });
      const outcome = await hooks.run('SubagentStart', input, {
        signal: options.signal,
        matchValue: agentType,
      });
      extra.push(...outcome.additionalContext);
    }
  } else if (source && hooks.hasHooks('SessionStart', source)) {
    const envFile = hookEnvFile(context);
    await mkdir(context.run.sessionDir, { recursive: true });
    const outcome = await hooks.run('SessionStart', createHookInput('SessionStart', context, { source }), {
      signal: options.signal,
      matchValue: source,
      env: { CLAUDE_ENV_FILE: envFile },
    });
    extra.push(...outcome.additionalContext);
    Object.assign(context.run.env, await readHookEnvFile(envFile));
  }
  if (hooks.hasHooks('UserPromptSubmit')) {
    const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    const outcome = await hooks.run(
      'UserPromptSubmit',
      createHookInput('UserPromptSubmit', context, { prompt: text }),
      { signal: options.signal },
    );
    const blocked = outcome.blocked?.reason ?? outcome.blockReasons[0] ?? outcome.stop?.reason;
    if (blocked !== undefined)
      return { prompt: blocks, blocked: `A UserPromptSubmit hook blocked the prompt: ${blocked}` };
    extra.push(...outcome.additionalContext);
  }
  const context_ = extra.filter((text) => text.trim() !== '');
  return {
    prompt: context_.length > 0 ? [...blocks, ...context_.map((text) => systemReminder(text))] : blocks,
  };
}

/**
 * Runs the Stop hooks when the model is done. Returns the reason to go on (a hook blocked the stop;
 * the reason goes to the model) or undefined to stop. `active` is `stop_hook_active`: true when the
 * agent is already continuing because of a Stop hook, so a hook can avoid looping forever.
 */
export async function runStopHooks(
  hooks: HookRunner,
  context: ToolUseContext,
  active: boolean,
  signal: AbortSignal,
): Promise<string | undefined> {
  const event = context.agent.depth > 0 ? 'SubagentStop' : 'Stop';
  if (!hooks.hasHooks(event)) return undefined;
  const outcome = await hooks.run(event, createHookInput(event, context, { stop_hook_active: active }), {
    signal,
  });
  if (outcome.stop) return undefined;
  return outcome.blocked?.reason ?? outcome.blockReasons[0];
}

/**
 * The notice for commands that run tools without a model (`check`, `call`, `mcp serve`) when the
 * settings have `prompt` hooks: those hooks cannot decide there, so they are skipped and a
 * PreToolUse call they would have judged is asked about. Empty when there are none.
 */
export function modelessPromptHookNotices(settings: LoadedSettings): string[] {
  const events = new Set<string>();
  for (const layer of settings.hooks)
    for (const [event, groups] of Object.entries(layer.hooks))
      for (const group of groups ?? [])
        if (group.hooks.some((handler) => handler.type === 'prompt')) events.add(event);
  if (events.size === 0 || settings.disableAllHooks) return [];
  return [
    `prompt hooks (${[...events].join(', ')}) need a model and this command runs without one: they are skipped, and a tool call a PreToolUse prompt hook would judge asks for approval instead. efferent run gives them its model.`,
  ];
}
