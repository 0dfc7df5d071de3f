import { strictKeywords as openAIStrictKeywords } from './openai-schema.ts';
import type { JsonSchema } from './tool.ts';

/** Keywords OpenAI's strict structured-output mode understands (draft-7 `definitions` too, unchanged). */
const strictKeywords = new Set([...openAIStrictKeywords, 'definitions']);

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when a schema can be sent with `strict: true` unchanged: every object closes its properties
 * (`additionalProperties: false`) and requires all of them, and only supported keywords appear.
 * Optional fields would have to become nullable, which changes what the tool receives, so such
 * schemas are sent without strict mode instead of being rewritten.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(visit);
    if (!isObject(node)) return true;
    for (const key of Object.keys(node)) if (!strictKeywords.has(key)) return false;
    const properties = node['properties'];
    if (isObject(properties) || node['type'] === 'object') {
      if (node['additionalProperties'] !== false) return false;
      const keys = isObject(properties) ? Object.keys(properties) : [];
      const required = Array.isArray(node['required']) ? node['required'] : [];
      if (keys.some((key) => !required.includes(key))) return false;
      if (isObject(properties) && !Object.values(properties).every(visit)) return false;
    }
    for (const key of ['items', 'anyOf', '$defs', 'definitions'] as const) {
      const child = node[key];
      if (child === undefined) continue;
      if (key === '$defs' || key === 'definitions') {
        if (isObject(child) && !Object.values(child).every(visit)) return false;
      } else if (!visit(child)) return false;
    }
    return true;
  };
  return visit(schema);
}
