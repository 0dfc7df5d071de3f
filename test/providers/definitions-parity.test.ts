import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyTool, buildTool } from '../../src/core/index.ts';
import { createAnthropicProvider, createOpenAIProvider } from '../../src/providers/index.ts';
import { assembleToolPool, getAllBaseTools, toProviderTools } from '../../src/registry/index.ts';
import { anthropicSse, type LoopbackServer, openaiSse, startLoopbackServer } from './loopback.ts';

/** `efferent tools` promises the pool "exactly as the model sees it": the providers must send that. */
const strictTool = buildTool({
  name: 'Forecast',
  strict: true,
  inputSchema: z.strictObject({ city: z.string(), units: z.enum(['metric', 'imperial']) }),
  prompt: 'Weather for a city.',
  async call() {
    return { data: '' };
  },
});
const pool: AnyTool[] = assembleToolPool({ builtIns: [...getAllBaseTools(), strictTool] });

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sentTools(provider: 'anthropic' | 'openai'): Promise<unknown[]> {
  server = await startLoopbackServer([
    { chunks: provider === 'anthropic' ? anthropicSse({ text: 'ok' }) : openaiSse({ text: 'ok' }) },
  ]);
  const model =
    provider === 'anthropic'
      ? createAnthropicProvider({ model: 'claude-test', apiKey: 'k', baseURL: server.url })
      : createOpenAIProvider({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1` });
  const signal = new AbortController().signal;
  for await (const _event of model.stream({
    systemPrompt: 's',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: pool,
    signal,
  })) {
    // drain
  }
  const body = server.requests[0]?.body as { tools: unknown[] } | undefined;
  return body?.tools ?? [];
}

describe('provider requests carry the definitions efferent tools prints', () => {
  it('OpenAI: identical, strict mode included where the schema allows it', async () => {
    const sent = await sentTools('openai');
    expect(sent).toEqual(await toProviderTools(pool, 'openai'));
    expect(sent).toContainEqual(
      expect.objectContaining({ function: expect.objectContaining({ name: 'Forecast', strict: true }) }),
    );
  });

  it('Anthropic: identical apart from the cache breakpoint on the last built-in tool', async () => {
    const sent = (await sentTools('anthropic')) as Array<Record<string, unknown>>;
    const withoutCache = sent.map(({ cache_control: _cache, ...rest }) => rest);
    expect(withoutCache).toEqual(await toProviderTools(pool, 'anthropic'));
    expect(sent.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
  });
});
