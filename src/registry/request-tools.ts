import { type AnyTool, loadedSubset, type RequestDeferral } from '../core/index.ts';
import {
  type ProviderToolDefinition,
  type ProviderToolOptions,
  type SchemaProvider,
  toProviderTools,
} from './provider-schemas.ts';

/**
 * The tool definitions one request sends, with deferral applied per provider:
 * - Anthropic gets the whole pool, every deferred tool marked `defer_loading` (loaded or not: a
 *   ToolSearch result's tool_reference blocks load them), so the list never changes as tools load;
 * - OpenAI-compatible and Gemini, which cannot defer, get the tools that are not deferred (pool
 *   order) followed by the loaded deferred tools (load order); each load appends, and the next
 *   request re-emits the longer list.
 */
export async function toRequestTools(
  pool: readonly AnyTool[],
  provider: SchemaProvider,
  deferral?: RequestDeferral,
  options: Omit<ProviderToolOptions, 'deferred'> = {},
): Promise<ProviderToolDefinition[]> {
  if (provider === 'anthropic') {
    return toProviderTools(pool, provider, deferral ? { ...options, deferred: deferral.deferred } : options);
  }
  return toProviderTools(loadedSubset(pool, deferral), provider, options);
}
