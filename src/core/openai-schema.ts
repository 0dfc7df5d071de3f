import { toAnthropicSchema } from './anthropic-schema.ts';
import { derefNode, isSchemaObject, mapSubschemas, typeList } from './schema-normalize.ts';
import type { JsonSchema } from './tool.ts';

function anyValue(node: unknown): unknown {
  if (node === true) return {};
  if (node === false) return { not: {} };
  return node;
}

function openAINode(node: unknown): unknown {
  const value = anyValue(node);
  if (!isSchemaObject(value)) return value;
  // `additionalProperties: false` is how objects close; everywhere else a boolean becomes an object.
  const out = mapSubschemas(value, (child, keyword) =>
    keyword === 'additionalProperties' && typeof child === 'boolean' ? child : openAINode(child),
  );
  const prefix = out['prefixItems'];
  if (Array.isArray(prefix)) {
    const rest = out['items'];
    const members = rest === undefined ? [...prefix, {}] : isNever(rest) ? prefix : [...prefix, rest];
    out['items'] = members.length === 1 ? members[0] : { anyOf: members };
    if (isNever(rest) && out['maxItems'] === undefined) out['maxItems'] = prefix.length;
    delete out['prefixItems'];
  }
  if (isNever(out['items'])) {
    out['maxItems'] = 0;
    out['items'] = {};
  }
  if ((typeList(out).includes('array') || out['minItems'] !== undefined) && out['items'] === undefined)
    out['items'] = {};
  return out;
}

function isNever(node: unknown): boolean {
  return (
    isSchemaObject(node) &&
    Object.keys(node).length === 1 &&
    isSchemaObject(node['not']) &&
    Object.keys(node['not']).length === 0
  );
}

/**
 * A tool's `parameters` for OpenAI-compatible Chat Completions without strict mode: the Anthropic
 * form (draft 2020-12, a plain object root), plus what OpenAI's validator insists on: every array has
 * an `items` schema (tuples become `items: {anyOf: [...]}` with their length bound), and boolean
 * subschemas become objects. Looser or equal to the original, never stricter.
 */
export function toOpenAISchema(schema: JsonSchema): JsonSchema {
  return openAINode(toAnthropicSchema(schema)) as JsonSchema;
}

/** Limits of OpenAI's strict mode (Structured Outputs, "Supported schemas"). */
export const openAIStrictLimits = {
  maxProperties: 5_000,
  maxNesting: 10,
  maxStringBudget: 120_000,
  maxEnumValues: 1_000,
  largeEnumThreshold: 250,
  largeEnumStringBudget: 15_000,
} as const;

/** String formats strict mode understands; others are dropped (a looser schema). */
export const openAIStrictFormats = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Keywords strict mode accepts. Validation keywords outside it are dropped; structure outside it refuses. */
export const strictKeywords: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
  '$defs',
  '$ref',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** The outcome of {@link toOpenAIStrictSchema}. */
export type OpenAIStrictEmission = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

class NotStrict extends Error {}

function where(path: readonly string[]): string {
  return path.length === 0 ? 'the root' : `\`${path.join('.')}\``;
}

function strictNode(node: unknown, path: readonly string[]): JsonSchema {
  if (!isSchemaObject(node)) throw new NotStrict(`${where(path)} is a boolean schema`);
  if (typeof node['$ref'] === 'string') return { $ref: node['$ref'] };
  let current: JsonSchema = { ...node };
  if (Array.isArray(current['allOf'])) {
    const parts = current['allOf'];
    if (parts.length !== 1 || !isSchemaObject(parts[0]) || parts[0]['$ref'] !== undefined)
      throw new NotStrict(`${where(path)} combines schemas with allOf`);
    const { allOf: _allOf, ...rest } = current;
    current = { ...parts[0], ...rest };
  }
  if (Array.isArray(current['oneOf'])) {
    const { oneOf, ...rest } = current;
    current = { ...rest, anyOf: [...(Array.isArray(rest['anyOf']) ? rest['anyOf'] : []), ...oneOf] };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(current)) {
    if (!strictKeywords.has(key)) continue;
    if (key === 'format' && (typeof value !== 'string' || !openAIStrictFormats.has(value))) continue;
    out[key] = value;
  }
  if (isSchemaObject(current['patternProperties']))
    throw new NotStrict(`${where(path)} has patternProperties (keys chosen by the caller)`);
  const types = typeList(out);
  if (isSchemaObject(out['properties']) && types.length === 0) out['type'] = 'object';
  if (typeList(out).includes('object')) {
    if (current['additionalProperties'] !== false)
      throw new NotStrict(`${where(path)} is an object that accepts more properties than it lists`);
    const properties = isSchemaObject(out['properties']) ? out['properties'] : {};
    const required = new Set(Array.isArray(out['required']) ? out['required'].map(String) : []);
    const optional = Object.keys(properties).find((name) => !required.has(name));
    if (optional !== undefined)
      throw new NotStrict(`${where([...path, optional])} is optional (strict mode requires every property)`);
    out['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, strictNode(child, [...path, name])]),
    );
    out['required'] = Object.keys(properties);
    out['additionalProperties'] = false;
  }
  if (out['items'] !== undefined) out['items'] = strictNode(out['items'], [...path, '[]']);
  if (Array.isArray(out['anyOf']))
    out['anyOf'] = out['anyOf'].map((child, index) => strictNode(child, [...path, `anyOf${index}`]));
  if (isSchemaObject(out['$defs'])) {
    out['$defs'] = Object.fromEntries(
      Object.entries(out['$defs']).map(([name, child]) => [name, strictNode(child, ['$defs', name])]),
    );
  }
  const describedType =
    typeList(out).length > 0 ||
    out['enum'] !== undefined ||
    out['const'] !== undefined ||
    out['anyOf'] !== undefined;
  if (!describedType) throw new NotStrict(`${where(path)} accepts any value (strict mode needs a type)`);
  return out;
}

function checkLimits(schema: JsonSchema): void {
  let properties = 0;
  let budget = 0;
  let enumValues = 0;
  const visit = (node: unknown, depth: number, seen: ReadonlySet<string>): void => {
    if (!isSchemaObject(node)) return;
    if (typeof node['$ref'] === 'string') {
      if (seen.has(node['$ref'])) return;
      visit(derefNode(schema, node), depth, new Set([...seen, node['$ref']]));
      return;
    }
    let level = depth;
    if (isSchemaObject(node['properties'])) {
      level = depth + 1;
      if (level > openAIStrictLimits.maxNesting)
        throw new NotStrict(`it nests objects deeper than ${openAIStrictLimits.maxNesting} levels`);
      for (const child of Object.values(node['properties'])) visit(child, level, seen);
    }
    if (node['items'] !== undefined) visit(node['items'], level, seen);
    if (Array.isArray(node['anyOf'])) for (const child of node['anyOf']) visit(child, level, seen);
  };
  visit(schema, 0, new Set());
  const count = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) count(child);
      return;
    }
    if (!isSchemaObject(node)) return;
    if (isSchemaObject(node['properties'])) {
      properties += Object.keys(node['properties']).length;
      budget += Object.keys(node['properties']).join('').length;
    }
    if (isSchemaObject(node['$defs'])) budget += Object.keys(node['$defs']).join('').length;
    if (Array.isArray(node['enum'])) {
      const text = node['enum'].map((value) => String(value)).join('');
      enumValues += node['enum'].length;
      budget += text.length;
      if (
        node['enum'].length > openAIStrictLimits.largeEnumThreshold &&
        text.length > openAIStrictLimits.largeEnumStringBudget
      )
        throw new NotStrict(
          `an enum of ${node['enum'].length} values is longer than ${openAIStrictLimits.largeEnumStringBudget} characters`,
        );
    }
    if (node['const'] !== undefined) budget += String(node['const']).length;
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'enum' && key !== 'const' && typeof value === 'object') count(value);
    }
  };
  count(schema);
  if (properties > openAIStrictLimits.maxProperties)
    throw new NotStrict(`it has ${properties} properties (limit ${openAIStrictLimits.maxProperties})`);
  if (enumValues > openAIStrictLimits.maxEnumValues)
    throw new NotStrict(`it has ${enumValues} enum values (limit ${openAIStrictLimits.maxEnumValues})`);
  if (budget > openAIStrictLimits.maxStringBudget)
    throw new NotStrict(`its names and enum values exceed ${openAIStrictLimits.maxStringBudget} characters`);
}

/**
 * The schema for OpenAI's strict mode, or why it cannot be sent strict. Strict mode only guarantees
 * the model matches the schema it is given, so the emission must never reject a call the original
 * accepts: an object that accepts unlisted properties, an optional property (strict mode would force
 * the model to send it), a value of any type, or a schema over the documented limits refuses strict
 * mode. Validation keywords strict mode lacks (`minLength`, `uniqueItems`, unknown formats, …) and
 * annotations (`default`, `examples`) are dropped, `oneOf` becomes `anyOf`: looser, and the original
 * is still checked before the call.
 */
export function toOpenAIStrictSchema(schema: JsonSchema): OpenAIStrictEmission {
  try {
    const emitted = strictNode(toOpenAISchema(schema), []);
    checkLimits(emitted);
    return { ok: true, schema: emitted };
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, reason: error.message };
    throw error;
  }
}
