import type { TokenUsage } from '../core/index.ts';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Writing the prompt cache (Anthropic); defaults to the input price. */
  cacheWrite?: number;
  /** Reading the prompt cache. */
  cacheRead: number;
}

/**
 * List prices of well-known models, matched by the longest prefix of the model id (dated snapshots
 * such as `claude-sonnet-4-5-20250929` match their family). Unknown models report tokens only.
 */
export const modelPrices: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-sonnet-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
};

/** The price of a model id, or undefined when it is not in the table. */
export function priceOf(model: string): ModelPrice | undefined {
  const id = model.includes(':') ? model.slice(model.indexOf(':') + 1) : model;
  let best: string | undefined;
  for (const prefix of Object.keys(modelPrices)) {
    if (id.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : modelPrices[best];
}

/** The cost of some usage in US dollars, or undefined for an unknown model. */
export function costOf(model: string, usage: TokenUsage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const perToken = 1 / 1_000_000;
  return (
    usage.inputTokens * price.input * perToken +
    usage.outputTokens * price.output * perToken +
    usage.cacheCreationInputTokens * (price.cacheWrite ?? price.input) * perToken +
    usage.cacheReadInputTokens * price.cacheRead * perToken
  );
}

/** Sums two usages. */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    cacheReadInputTokens: left.cacheReadInputTokens + right.cacheReadInputTokens,
    cacheCreationInputTokens: left.cacheCreationInputTokens + right.cacheCreationInputTokens,
  };
}
