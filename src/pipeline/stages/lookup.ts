import { type AnyTool, EfferentError, ErrorCodes } from '../../core/index.ts';
import { findToolByName } from '../../core/tool-lookup.ts';
import type { StageResult } from '../types.ts';

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** Up to five pool names close to `name`: same letters ignoring case, containment, or a few typos. */
export function closeToolNames(name: string, tools: readonly AnyTool[]): string[] {
  const lower = name.toLowerCase();
  // Short names tolerate one typo; longer ones about one per three letters.
  const allowedTypos = lower.length <= 4 ? 1 : Math.max(2, Math.floor(lower.length / 3));
  return tools
    .map((tool) => {
      const candidate = tool.name.toLowerCase();
      if (candidate === lower) return { name: tool.name, score: 0 };
      if (lower.length >= 3 && (candidate.includes(lower) || lower.includes(candidate))) {
        return { name: tool.name, score: 1 };
      }
      const distance = editDistance(lower, candidate);
      return {
        name: tool.name,
        score: distance <= allowedTypos ? 1 + distance : 99,
      };
    })
    .filter((entry) => entry.score < 99)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 5)
    .map((entry) => entry.name);
}

/**
 * Step 1: find the tool by name, then by alias in the pool, then by an alias known to `allTools`
 * (transcripts written before a rename). A renamed tool resolves only if its current name is in the
 * pool: tools filtered out of the pool (deny rules, disabled) stay unavailable under any name.
 */
export function lookupTool(
  name: string,
  tools: readonly AnyTool[],
  allTools: readonly AnyTool[] = [],
): StageResult<AnyTool> {
  const direct = findToolByName(tools, name);
  if (direct) return { ok: true, value: direct };
  const renamed = findToolByName(allTools, name);
  const current = renamed && tools.find((tool) => tool.name === renamed.name);
  if (current) return { ok: true, value: current };
  const close = closeToolNames(name, tools);
  const hint =
    close.length > 0
      ? ` Did you mean: ${close.join(', ')}?`
      : ' Use only the tools listed in your tool definitions.';
  const message = `No such tool available: ${name}.${hint}`;
  return {
    ok: false,
    failure: { message, outcome: 'not_found', error: new EfferentError(ErrorCodes.toolNotFound, message) },
  };
}
