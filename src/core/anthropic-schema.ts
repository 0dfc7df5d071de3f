import { hoistRefs, normalizeJsonSchema, objectRoot } from './schema-normalize.ts';
import type { JsonSchema } from './tool.ts';

/**
 * A tool's input schema as the Anthropic Messages API takes it (`input_schema`): JSON Schema draft
 * 2020-12 whose root is a plain `type: "object"` (no `oneOf`, `anyOf` or `allOf` at the root, which
 * the API rejects). Older drafts are rewritten to 2020-12 and refs that point nowhere are dropped;
 * every other keyword goes through unchanged, so the emitted schema accepts at least what the
 * original accepts.
 */
export function toAnthropicSchema(schema: JsonSchema): JsonSchema {
  return objectRoot(hoistRefs(normalizeJsonSchema(schema)));
}
