import type { GuardHost } from './host-calls.ts';

/**
 * What the guard answers each host. All three read JSON on stdout after exit 0 and block on exit 2
 * with stderr as the reason; they differ in the JSON:
 * - Claude Code: `hookSpecificOutput.permissionDecision` = allow | ask | deny, with a reason;
 * - Codex: the same shape, but only a deny is honoured and any other field fails the hook (which
 *   Codex then ignores), so everything but a deny is `{}` and Codex's own approval applies;
 * - Gemini CLI: top-level `decision` = allow | deny with `reason`; there is no ask, so an ask is `{}`
 *   and Gemini's own confirmation applies.
 */

/** The guard's verdict on one host call. */
export type GuardVerdict = 'allow' | 'ask' | 'deny' | 'no-opinion';

/** What to tell the host when efferent would ask: ask (where the host can), leave it to the host, or deny. */
export type OnAsk = 'ask' | 'defer' | 'deny';
/** What to tell the host when efferent allows: allow (skipping the host's prompt), or leave it to the host. */
export type OnAllow = 'allow' | 'defer';

/**
 * The verdict the host gets, after `--on-ask` / `--on-allow` and what the host can express. With
 * `--on-ask ask` (the default), a host without an ask (Codex, Gemini CLI) gets a deny for an ask that
 * a safety check, the analysis, the workspace or an ask rule raised, and no opinion (its own approval decides) for a
 * call that is only not allowed by any rule.
 */
export function hostVerdict(
  host: GuardHost,
  decision: { verdict: GuardVerdict; flagged?: boolean },
  onAsk: OnAsk,
  onAllow: OnAllow,
): GuardVerdict {
  const { verdict } = decision;
  if (verdict === 'allow') return onAllow === 'allow' && host !== 'codex' ? 'allow' : 'no-opinion';
  if (verdict !== 'ask') return verdict;
  if (onAsk === 'deny') return 'deny';
  if (onAsk === 'defer') return 'no-opinion';
  if (host === 'claude') return 'ask';
  return decision.flagged ? 'deny' : 'no-opinion';
}

/** The stdout text for a host (empty when the host needs nothing printed). */
export function renderGuardOutput(host: GuardHost, verdict: GuardVerdict, reason: string): string {
  if (host === 'gemini') {
    if (verdict === 'deny') return `${JSON.stringify({ decision: 'deny', reason })}\n`;
    if (verdict === 'allow') return `${JSON.stringify({ decision: 'allow', reason })}\n`;
    return '{}\n';
  }
  if (verdict === 'no-opinion') return host === 'codex' ? '{}\n' : '';
  return `${JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict,
      permissionDecisionReason: reason,
    },
  })}\n`;
}

/** The hook configuration that puts the guard in front of each host, printed by `--print-config`. */
export function hostHookConfig(host: GuardHost, command = 'efferent guard'): string {
  if (host === 'gemini') {
    const settings = {
      hooks: {
        BeforeTool: [
          {
            matcher: '.*',
            hooks: [{ type: 'command', command: `${command} --agent gemini`, name: 'efferent' }],
          },
        ],
      },
    };
    return `# Add to .gemini/settings.json (project) or ~/.gemini/settings.json (user):\n${JSON.stringify(settings, null, 2)}\n`;
  }
  if (host === 'codex') {
    const hooks = {
      hooks: {
        PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: `${command} --agent codex` }] }],
      },
    };
    return `# Put in ~/.codex/hooks.json (or .codex/hooks.json), and enable hooks in ~/.codex/config.toml:\n#   [features]\n#   codex_hooks = true\n${JSON.stringify(hooks, null, 2)}\n`;
  }
  const settings = {
    hooks: {
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${command} --agent claude` }] }],
    },
  };
  return `# Add to ~/.claude/settings.json (user) or .claude/settings.json (project):\n${JSON.stringify(settings, null, 2)}\n`;
}
