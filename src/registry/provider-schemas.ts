import {
  type AnyTool,
  type JsonSchema,
  toAnthropicSchema,
  toGeminiSchema,
  toOpenAISchema,
  toOpenAIStrictSchema,
  toolInputJsonSchema,
} from '../core/index.ts';

/** The providers efferent can describe tools for. */
export type SchemaProvider = 'anthropic' | 'openai' | 'gemini';

/** A tool as the Anthropic Messages API takes it. */
export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: JsonSchema;
  defer_loading?: boolean;
}

/** A tool as OpenAI-compatible Chat Completions take it. */
export interface OpenAIToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** A function declaration as Gemini takes it (no `parameters` for a tool without any). */
export interface GeminiToolDefinition {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

/** Any provider's tool definition. */
export type ProviderToolDefinition = AnthropicToolDefinition | OpenAIToolDefinition | GeminiToolDefinition;

/** Options for {@link toProviderTools}. */
export interface ProviderToolOptions {
  /** Names of deferred tools whose full schema the model has not loaded yet (sent with `defer_loading`). */
  deferred?: ReadonlySet<string>;
  isNonInteractive?: boolean;
}

/** One tool's definition for a provider. */
export async function toProviderTool(
  tool: AnyTool,
  provider: SchemaProvider,
  pool: readonly AnyTool[],
  options: ProviderToolOptions = {},
): Promise<ProviderToolDefinition> {
  const description = await tool.prompt({ tools: pool, isNonInteractive: options.isNonInteractive ?? true });
  const schema = toolInputJsonSchema(tool);
  switch (provider) {
    case 'anthropic': {
      const definition: AnthropicToolDefinition = {
        name: tool.name,
        description,
        input_schema: toAnthropicSchema(schema),
      };
      if (options.deferred?.has(tool.name)) definition.defer_loading = true;
      return definition;
    }
    case 'openai': {
      // Strict only when the tool asks for it and the strict form rejects no valid call.
      const strict = tool.strict ? toOpenAIStrictSchema(schema) : undefined;
      const fn: OpenAIToolDefinition['function'] = {
        name: tool.name,
        description,
        parameters: strict?.ok ? strict.schema : toOpenAISchema(schema),
      };
      if (strict?.ok) fn.strict = true;
      return { type: 'function', function: fn };
    }
    case 'gemini': {
      const parameters = toGeminiSchema(schema);
      // Gemini refuses an OBJECT without properties; a tool without parameters sends none.
      const hasProperties = Object.keys((parameters['properties'] as object | undefined) ?? {}).length > 0;
      return hasProperties ? { name: tool.name, description, parameters } : { name: tool.name, description };
    }
  }
}

/** The whole pool for a provider, in pool order (built-ins first, then MCP tools). */
export async function toProviderTools(
  pool: readonly AnyTool[],
  provider: SchemaProvider,
  options: ProviderToolOptions = {},
): Promise<ProviderToolDefinition[]> {
  return Promise.all(pool.map((tool) => toProviderTool(tool, provider, pool, options)));
}
