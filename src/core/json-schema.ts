import { z } from 'zod';
import type { AnyTool, JsonSchema } from './tool.ts';

/** Input fields whose names start with this are set by efferent itself, never by the model. */
export const internalFieldPrefix = '_';

/** True for an input key the model must never see in a schema nor be allowed to send. */
export function isInternalField(key: string): boolean {
  return key.startsWith(internalFieldPrefix);
}

/**
 * The JSON Schema of a tool's input, as the model should produce it. Internal fields (leading `_`,
 * such as Bash's `_simulatedSedEdit`) are removed from the top-level properties.
 */
export function toolInputJsonSchema(tool: AnyTool): JsonSchema {
  if (tool.inputJSONSchema) return tool.inputJSONSchema;
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _ignored, ...rest } = schema;
  const properties = rest['properties'];
  if (properties && typeof properties === 'object') {
    rest['properties'] = Object.fromEntries(
      Object.entries(properties).filter(([key]) => !isInternalField(key)),
    );
    const required = rest['required'];
    if (Array.isArray(required)) {
      const kept = required.filter((key) => typeof key === 'string' && !isInternalField(key));
      if (kept.length > 0) rest['required'] = kept;
      else delete rest['required'];
    }
  }
  return rest;
}
