import { z } from 'zod';
import type { AnyTool, JsonSchema } from './tool.ts';

/** The JSON Schema of a tool's input, as the model should produce it. */
export function toolInputJsonSchema(tool: AnyTool): JsonSchema {
  if (tool.inputJSONSchema) return tool.inputJSONSchema;
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
