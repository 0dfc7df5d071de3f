import { basename, isAbsolute, resolve } from 'node:path';
import { EfferentError, type ModelProvider } from '../../core/index.ts';
import {
  createAnthropicProvider,
  createOpenAIProvider,
  createScriptedProvider,
  loadSessionFile,
} from '../../providers/index.ts';

/**
 * The models used when `--model` names only a provider or nothing at all: current ones, none that the
 * Anthropic SDK lists as deprecated (a test checks).
 */
export const defaultModels = { anthropic: 'claude-sonnet-5', openai: 'gpt-4.1' } as const;

type Env = Readonly<Record<string, string | undefined>>;

function providerOf(spec: string): { provider: string; name: string } {
  const colon = spec.indexOf(':');
  if (colon > 0) return { provider: spec.slice(0, colon), name: spec.slice(colon + 1) };
  if (spec === 'anthropic' || spec === 'openai') return { provider: spec, name: '' };
  if (spec.startsWith('claude')) return { provider: 'anthropic', name: spec };
  return { provider: 'openai', name: spec };
}

/**
 * The model spec to use, Claude Code's order: `--model`, else `ANTHROPIC_MODEL` (an Anthropic model
 * unless it names its provider, `openai:NAME`), else the settings `model` key (read as `--model`
 * is). `env` is the configuration environment, so `ANTHROPIC_MODEL` may come from settings `env`.
 */
export function chooseModelSpec(
  flag: string | undefined,
  env: Env,
  settingsModel: string | undefined,
): string | undefined {
  if (flag) return flag;
  const fromEnv = env['ANTHROPIC_MODEL']?.trim();
  if (fromEnv) return fromEnv.includes(':') ? fromEnv : `anthropic:${fromEnv}`;
  return settingsModel;
}

/**
 * Builds the provider `--model` names: `anthropic:NAME`, `openai:NAME` or `replay:FILE`; without a
 * flag, whichever of ANTHROPIC_API_KEY and OPENAI_API_KEY is set. Missing configuration throws one
 * line that says what to set.
 */
export async function resolveProvider(
  spec: string | undefined,
  env: Env,
  cwd: string,
): Promise<ModelProvider> {
  const chosen =
    spec ??
    (env['ANTHROPIC_API_KEY']
      ? 'anthropic'
      : env['OPENAI_API_KEY'] || env['OPENAI_BASE_URL']
        ? 'openai'
        : undefined);
  if (chosen === undefined) {
    throw new EfferentError(
      'provider_config',
      'No model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or pass --model replay:FILE.',
    );
  }
  const { provider, name } = providerOf(chosen);
  switch (provider) {
    case 'anthropic': {
      const apiKey = env['ANTHROPIC_API_KEY'];
      if (!apiKey) {
        throw new EfferentError(
          'provider_config',
          'Set ANTHROPIC_API_KEY to use Anthropic models (and ANTHROPIC_BASE_URL for another endpoint).',
        );
      }
      const baseURL = env['ANTHROPIC_BASE_URL'];
      return createAnthropicProvider({
        model: name || defaultModels.anthropic,
        apiKey,
        ...(baseURL ? { baseURL } : {}),
      });
    }
    case 'openai': {
      const apiKey = env['OPENAI_API_KEY'];
      const baseURL = env['OPENAI_BASE_URL'];
      if (!apiKey && !baseURL) {
        throw new EfferentError(
          'provider_config',
          'Set OPENAI_API_KEY to use OpenAI models, or OPENAI_BASE_URL for a local OpenAI-compatible server.',
        );
      }
      return createOpenAIProvider({
        model: name || defaultModels.openai,
        ...(apiKey ? { apiKey } : {}),
        ...(baseURL ? { baseURL } : {}),
      });
    }
    case 'replay': {
      if (!name) throw new EfferentError('usage', 'Give the session file: --model replay:FILE.');
      const path = isAbsolute(name) ? name : resolve(cwd, name);
      return createScriptedProvider(await loadSessionFile(path), { model: basename(path) });
    }
    default:
      throw new EfferentError(
        'usage',
        `Unknown provider "${provider}" in --model; use anthropic:, openai: or replay:.`,
      );
  }
}
