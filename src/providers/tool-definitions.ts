import {
  type AnyTool,
  type JsonSchema,
  type RequestDeferral,
  toOpenAIStrictSchema,
  toolInputJsonSchema,
} from '../core/index.ts';

/** What every provider needs to know about one tool. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** True for tools from MCP servers; they come after the built-ins. */
  isMcp: boolean;
  /**
   * The tool asks for strict schema adherence and its schema can be emitted strict without rejecting
   * a valid call (OpenAI's `strict`; see `toOpenAIStrictSchema`).
   */
  strict: boolean;
  /** Deferred: sent by name until loaded (Anthropic's `defer_loading`). */
  deferLoading?: boolean;
}

/** Describes the pool for a request, keeping its order (built-ins first, MCP after). */
export async function describeTools(
  tools: readonly AnyTool[],
  isNonInteractive: boolean,
  deferral?: RequestDeferral,
): Promise<ToolDescriptor[]> {
  return Promise.all(
    tools.map(async (tool) => {
      const inputSchema = toolInputJsonSchema(tool);
      const descriptor: ToolDescriptor = {
        name: tool.name,
        description: await tool.prompt({ tools, isNonInteractive }),
        inputSchema,
        isMcp: tool.mcpInfo !== undefined,
        strict: tool.strict && toOpenAIStrictSchema(inputSchema).ok,
      };
      if (deferral?.deferred.has(tool.name)) descriptor.deferLoading = true;
      return descriptor;
    }),
  );
}
