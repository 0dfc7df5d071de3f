import { toOpenAISchema } from './openai-schema.ts';
import { derefNode, isSchemaObject, typeList } from './schema-normalize.ts';
import type { JsonSchema } from './tool.ts';

/** Numeric and length keywords Gemini's Schema has, copied as they are. */
const boundKeywords = [
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
] as const;

/** Formats Gemini accepts, by type (the Gemini Developer API refuses other string formats). */
const geminiFormats: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/** How often one `$ref` may repeat on a path before the recursion is cut. */
const maxRefRepeats = 2;
/** How many `$ref`s deep inlining goes at most, recursive or not. */
const maxRefDepth = 8;

/** Regex features RE2 (Gemini's pattern engine) lacks: lookaround and back-references. */
const re2Unsafe = /\(\?<?[=!]|\\[1-9]|\\k</;

interface Context {
  readonly root: JsonSchema;
  readonly refs: readonly string[];
}

function note(out: JsonSchema, text: string): void {
  const description = typeof out['description'] === 'string' ? out['description'] : '';
  if (description.includes(text)) return;
  out['description'] = description ? `${description} (${text})` : `(${text})`;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function mergeAllOf(node: JsonSchema, root: JsonSchema): JsonSchema {
  const parts = [node, ...(node['allOf'] as unknown[]).map((part) => derefNode(root, part))];
  const merged: JsonSchema = {};
  const properties: JsonSchema = {};
  const required = new Set<string>();
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'allOf' || key === 'properties' || key === 'required') continue;
      if (merged[key] === undefined) merged[key] = value;
    }
    // Each part's schema for a property accepts at least what the intersection accepts: keep the first.
    if (isSchemaObject(part['properties'])) {
      for (const [name, child] of Object.entries(part['properties'])) properties[name] ??= child;
    }
    if (Array.isArray(part['required'])) for (const name of part['required']) required.add(String(name));
  }
  if (Object.keys(properties).length > 0) merged['properties'] = properties;
  if (required.size > 0) merged['required'] = [...required];
  return merged;
}

function convert(input: unknown, context: Context): JsonSchema {
  if (!isSchemaObject(input)) return {};
  let node = input;
  if (typeof node['$ref'] === 'string') {
    const ref = node['$ref'];
    const target = derefNode(context.root, node);
    const repeats = context.refs.filter((seen) => seen === ref).length;
    if (repeats >= maxRefRepeats || context.refs.length >= maxRefDepth) {
      const cut: JsonSchema = {};
      const types = typeList(target);
      if (types.length === 1 && types[0] !== 'null') cut['type'] = types[0];
      note(
        cut,
        `recursive structure cut here: any value of this kind is accepted and checked before the call`,
      );
      return cut;
    }
    return convert(target, { ...context, refs: [...context.refs, ref] });
  }
  if (Array.isArray(node['allOf'])) node = mergeAllOf(node, context.root);
  const types = typeList(node);
  const concrete = types.filter((type) => type !== 'null');
  if (concrete.length > 1) {
    const { type: _type, ...rest } = node;
    const out: JsonSchema = {
      anyOf: concrete.map((type) => convert({ ...rest, type, description: undefined }, context)),
    };
    if (types.includes('null')) out['nullable'] = true;
    if (typeof node['description'] === 'string') out['description'] = node['description'];
    return finish(out);
  }
  const out: JsonSchema = {};
  const type = concrete[0];
  if (type !== undefined) out['type'] = type;
  if (types.includes('null')) out['nullable'] = true;
  if (typeof node['title'] === 'string') out['title'] = node['title'];
  if (typeof node['description'] === 'string') out['description'] = node['description'];
  const values = Array.isArray(node['enum'])
    ? node['enum']
    : node['const'] !== undefined
      ? [node['const']]
      : undefined;
  if (values !== undefined) convertEnum(values, out);
  if (typeof node['format'] === 'string') {
    const allowed = geminiFormats[String(out['type'])];
    if (allowed?.has(node['format'])) out['format'] = node['format'];
    else note(out, `format: ${node['format']}`);
  }
  for (const key of boundKeywords) if (typeof node[key] === 'number') out[key] = node[key];
  if (typeof node['exclusiveMinimum'] === 'number' && out['minimum'] === undefined)
    out['minimum'] = node['exclusiveMinimum'];
  if (typeof node['exclusiveMaximum'] === 'number' && out['maximum'] === undefined)
    out['maximum'] = node['exclusiveMaximum'];
  if (typeof node['pattern'] === 'string') {
    if (re2Unsafe.test(node['pattern'])) note(out, `pattern: ${node['pattern']}`);
    else out['pattern'] = node['pattern'];
  }
  if (node['default'] !== undefined && node['default'] !== null && typeof node['default'] !== 'object')
    out['default'] = node['default'];
  if (isSchemaObject(node['properties']) && Object.keys(node['properties']).length > 0) {
    const properties = Object.fromEntries(
      Object.entries(node['properties']).map(([name, child]) => [name, convert(child, context)]),
    );
    out['properties'] = properties;
    if (out['type'] === undefined && out['anyOf'] === undefined) out['type'] = 'object';
    const required = Array.isArray(node['required'])
      ? node['required'].map(String).filter((name) => name in properties)
      : [];
    if (required.length > 0) out['required'] = [...new Set(required)];
  } else if (
    out['type'] === 'object' &&
    (node['additionalProperties'] !== undefined || node['patternProperties'] !== undefined)
  ) {
    note(out, 'an object with keys of your choice');
  }
  if (node['items'] !== undefined) out['items'] = convert(node['items'], context);
  else if (out['type'] === 'array') out['items'] = {};
  const alternatives = [
    ...(Array.isArray(node['anyOf']) ? node['anyOf'] : []),
    ...(Array.isArray(node['anyOf']) ? [] : Array.isArray(node['oneOf']) ? node['oneOf'] : []),
  ];
  if (alternatives.length > 0) {
    out['anyOf'] = alternatives.map((child) => convert(child, context));
    // `type` beside `anyOf` would have to hold for every alternative; leaving it out is looser.
    delete out['type'];
  }
  return finish(out);
}

/** Gemini enums are string lists: `null` moves to `nullable`; other values stay in the description. */
function convertEnum(values: unknown[], out: JsonSchema): void {
  if (values.includes(null)) out['nullable'] = true;
  const kept = values.filter((value) => value !== null);
  if (kept.length === 0) return;
  if (kept.every((value) => typeof value === 'string')) {
    out['enum'] = kept;
    if (out['type'] === undefined || out['type'] === 'string') out['type'] = 'string';
    else delete out['enum'];
    return;
  }
  const types = [...new Set(kept.map(jsonType))];
  if (out['type'] === undefined && types.length === 1) out['type'] = types[0];
  note(out, `one of ${kept.map((value) => JSON.stringify(value)).join(', ')}`);
}

function finish(out: JsonSchema): JsonSchema {
  simplifyNullableAnyOf(out);
  mergeEnumAlternatives(out);
  const anyOf = out['anyOf'];
  if (
    Array.isArray(anyOf) &&
    anyOf.some((entry) => isSchemaObject(entry) && Object.keys(entry).length === 0)
  ) {
    // One alternative accepts anything, so the union does too.
    delete out['anyOf'];
  } else if (Array.isArray(anyOf) && anyOf.length === 1 && isSchemaObject(anyOf[0])) {
    delete out['anyOf'];
    const only = anyOf[0];
    for (const [key, value] of Object.entries(only)) {
      if (key === 'description' && typeof out['description'] === 'string') continue;
      if (key === 'nullable') out['nullable'] = out['nullable'] === true || value === true;
      else out[key] = value;
    }
  }
  if (out['nullable'] === false) delete out['nullable'];
  return out;
}

/** `anyOf` of string enums (a TypeScript string union) becomes one enum. */
function mergeEnumAlternatives(out: JsonSchema): void {
  const anyOf = out['anyOf'];
  if (!Array.isArray(anyOf) || anyOf.length === 0) return;
  const enumOnly = anyOf.every(
    (entry) =>
      isSchemaObject(entry) &&
      Array.isArray(entry['enum']) &&
      entry['type'] === 'string' &&
      Object.keys(entry).every((key) => key === 'enum' || key === 'type' || key === 'nullable'),
  );
  if (!enumOnly) return;
  delete out['anyOf'];
  if (anyOf.some((entry) => isSchemaObject(entry) && entry['nullable'] === true)) out['nullable'] = true;
  out['type'] = 'string';
  out['enum'] = [
    ...new Set(
      anyOf.flatMap((entry) => (isSchemaObject(entry) && Array.isArray(entry['enum']) ? entry['enum'] : [])),
    ),
  ];
}

/** `anyOf: [X, {nullable}]` (how optional-or-null fields arrive) becomes X with `nullable: true`. */
function simplifyNullableAnyOf(out: JsonSchema): void {
  const anyOf = out['anyOf'];
  if (!Array.isArray(anyOf)) return;
  const isNullOnly = (entry: unknown) =>
    isSchemaObject(entry) &&
    entry['nullable'] === true &&
    Object.keys(entry).every((key) => key === 'nullable' || key === 'description');
  const rest = anyOf.filter((entry) => !isNullOnly(entry));
  if (rest.length === anyOf.length) return;
  out['nullable'] = true;
  out['anyOf'] = rest;
}

/**
 * A Gemini function declaration's `parameters`: Gemini's subset of OpenAPI 3.0's Schema. `$ref`s are
 * inlined (a recursive one is cut after it repeats, to a node that accepts any value of its type),
 * `allOf` is merged, `oneOf` becomes `anyOf`, `const` and enums become string enums (other values
 * move to the description), type unions become `anyOf` or `nullable`, exclusive bounds become
 * inclusive ones, tuples become one item schema, and what Gemini cannot say (`additionalProperties`,
 * `patternProperties`, most formats, lookaround patterns, `not`, `uniqueItems`, …) is dropped, with a
 * note in the description where it matters to the model. Never stricter than the original, which is
 * still checked before the call.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  const prepared = toOpenAISchema(schema);
  const { $defs: _defs, ...body } = prepared;
  const out = convert(body, { root: prepared, refs: [] });
  out['type'] = 'object';
  delete out['anyOf'];
  delete out['nullable'];
  return out;
}
