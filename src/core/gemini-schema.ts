import type { JsonSchema } from './tool.ts';

/** The OpenAPI-3.0 subset Gemini function declarations accept. */
const geminiKeywords = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'items',
  'minimum',
  'maximum',
  'default',
]);

/** String formats Gemini accepts; others are dropped rather than rejected by the API. */
const geminiFormats = new Set(['enum', 'date-time', 'int32', 'int64', 'float', 'double']);

/** How deep a recursive `$ref` is followed before it is cut to a plain object. */
const maxRefDepth = 4;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(node)) return undefined;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isObject(node) ? node : undefined;
}

function mergeAllOf(parts: unknown[]): JsonSchema {
  const merged: JsonSchema = {};
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    Object.assign(merged, part);
    if (isObject(part['properties'])) Object.assign(properties, part['properties']);
    if (Array.isArray(part['required']))
      required.push(...part['required'].filter((k) => typeof k === 'string'));
  }
  delete merged['allOf'];
  if (Object.keys(properties).length > 0) merged['properties'] = properties;
  if (required.length > 0) merged['required'] = [...new Set(required)];
  return merged;
}

function convertType(node: JsonSchema, out: JsonSchema): void {
  const type = node['type'];
  if (Array.isArray(type)) {
    const concrete = type.filter((entry) => entry !== 'null');
    if (type.includes('null')) out['nullable'] = true;
    if (concrete.length === 1) out['type'] = concrete[0];
    else if (concrete.length > 1) out['anyOf'] = concrete.map((entry) => ({ type: entry }));
  } else if (type === 'null') {
    out['nullable'] = true;
  } else if (type !== undefined) {
    out['type'] = type;
  }
}

function convert(node: unknown, root: JsonSchema, depth: number): JsonSchema {
  if (!isObject(node)) return {};
  if (typeof node['$ref'] === 'string') {
    const target = resolveRef(root, node['$ref']);
    if (!target || depth >= maxRefDepth)
      return { type: 'object', description: 'Recursive structure (truncated).' };
    const { $ref: _ref, ...siblings } = node;
    return convert({ ...target, ...siblings }, root, depth + 1);
  }
  if (Array.isArray(node['allOf'])) return convert(mergeAllOf([node, ...node['allOf']]), root, depth);
  const out: JsonSchema = {};
  convertType(node, out);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' || !geminiKeywords.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out['properties'] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, convert(child, root, depth)]),
      );
    } else if (key === 'items') {
      out['items'] = convert(Array.isArray(value) ? value[0] : value, root, depth);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out['anyOf'] = value.map((child) => convert(child, root, depth));
    } else if (key === 'format') {
      if (typeof value === 'string' && geminiFormats.has(value)) out['format'] = value;
    } else {
      out[key] = value;
    }
  }
  if (node['const'] !== undefined) out['enum'] = [node['const']];
  if (Array.isArray(node['oneOf'])) out['anyOf'] = node['oneOf'].map((child) => convert(child, root, depth));
  simplifyNullableAnyOf(out);
  mergeEnumAlternatives(out);
  finishEnum(out);
  return out;
}

/** Gemini enums are typed string lists: `null` moves to `nullable`, and the type is filled in. */
function finishEnum(out: JsonSchema): void {
  const values = out['enum'];
  if (!Array.isArray(values)) return;
  if (values.includes(null)) out['nullable'] = true;
  const kept = values.filter((value) => value !== null);
  out['enum'] = kept;
  if (out['type'] === undefined && kept.every((value) => typeof value === 'string')) out['type'] = 'string';
}

/** `anyOf` of one-value enums (a TypeScript string union) becomes one enum. */
function mergeEnumAlternatives(out: JsonSchema): void {
  const anyOf = out['anyOf'];
  if (!Array.isArray(anyOf) || anyOf.length === 0) return;
  const enumOnly = anyOf.every(
    (entry) =>
      isObject(entry) &&
      Array.isArray(entry['enum']) &&
      Object.keys(entry).every((key) => key === 'enum' || key === 'type'),
  );
  if (!enumOnly) return;
  delete out['anyOf'];
  out['enum'] = anyOf.flatMap((entry) =>
    isObject(entry) && Array.isArray(entry['enum']) ? entry['enum'] : [],
  );
}

/** `anyOf: [X, {nullable}]` (how optional-or-null fields arrive) becomes X with `nullable: true`. */
function simplifyNullableAnyOf(out: JsonSchema): void {
  const anyOf = out['anyOf'];
  if (!Array.isArray(anyOf)) return;
  const isNullOnly = (entry: unknown) =>
    isObject(entry) && entry['nullable'] === true && entry['type'] === undefined;
  const rest = anyOf.filter((entry) => !isNullOnly(entry));
  if (rest.length === anyOf.length) return;
  out['nullable'] = true;
  if (rest.length === 1 && isObject(rest[0])) {
    delete out['anyOf'];
    Object.assign(out, rest[0]);
  } else {
    out['anyOf'] = rest;
  }
}

/**
 * A Gemini-safe copy of a JSON Schema: `$ref`s inlined (recursion cut after a few levels), `allOf`
 * merged, `oneOf` as `anyOf`, `const` as a one-value enum, type unions as `nullable`, and every
 * keyword outside Gemini's subset dropped.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  return convert(schema, schema, 0);
}
