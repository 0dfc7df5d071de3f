/**
 * Checkers for what each provider documents it accepts in a tool's schema. Each returns the list of
 * violations (empty = acceptable). Written from these pages (read 2026-12):
 *
 * - Anthropic, tool use: https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use
 *   (`input_schema` is a JSON Schema object; JSON Schema draft 2020-12), and the API's refusal
 *   "input_schema does not support oneOf, allOf, or anyOf at the top level".
 * - OpenAI, function calling: https://platform.openai.com/docs/guides/function-calling (`parameters`
 *   is a JSON Schema object), and its validator's refusals "array schema missing items" and
 *   "schema must be a JSON Schema of 'type: \"object\"'".
 * - OpenAI, strict mode: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 *   (supported types and keywords, string formats, `additionalProperties: false` and every property
 *   required, root not `anyOf`, `$defs`/`$ref` with recursion, and the limits: 5,000 properties, 10
 *   levels of nesting, 120,000 characters of names and enum values, 1,000 enum values, 15,000
 *   characters for one enum of more than 250 values).
 * - Gemini, function declarations: https://ai.google.dev/api/caching#Schema and
 *   https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema (the OpenAPI 3.0 subset: its
 *   field list, one `type`, string-only `enum`, `nullable`, `anyOf`, no `$ref`), and
 *   https://firebase.google.com/docs/reference/js/ai.schemashared (string formats limited to `enum`
 *   and `date-time` on the Gemini Developer API). Patterns run on RE2
 *   (https://github.com/google/re2/wiki/Syntax: no lookaround, no back-references).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../../src/core/index.ts';

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const metaValidator = new Ajv2020({ strict: false, logger: false });

function types(node: JsonSchema): string[] {
  const type = node['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : [];
}

function resolves(root: JsonSchema, ref: string): boolean {
  if (ref === '#') return true;
  if (!ref.startsWith('#/')) return false;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

/** Every subschema with its path, following the 2020-12 applicators. */
function walk(
  node: unknown,
  visit: (node: unknown, path: string, keyword: string) => void,
  path = '',
  keyword = '',
): void {
  visit(node, path, keyword);
  if (!isObject(node)) return;
  for (const key of [
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
  ]) {
    if (node[key] !== undefined && !Array.isArray(node[key])) walk(node[key], visit, `${path}/${key}`, key);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = node[key];
    if (Array.isArray(list))
      for (const [index, child] of list.entries()) walk(child, visit, `${path}/${key}/${index}`, key);
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions']) {
    const map = node[key];
    if (isObject(map))
      for (const [name, child] of Object.entries(map)) walk(child, visit, `${path}/${key}/${name}`, key);
  }
}

function draft2020Violations(schema: JsonSchema): string[] {
  const errors: string[] = [];
  if (!metaValidator.validateSchema(schema)) {
    for (const error of metaValidator.errors ?? [])
      errors.push(`not draft 2020-12: ${error.instancePath} ${error.message}`);
  }
  walk(schema, (node, path) => {
    if (isObject(node) && typeof node['$ref'] === 'string' && !resolves(schema, node['$ref']))
      errors.push(`${path}: $ref ${node['$ref']} points nowhere`);
  });
  return errors;
}

function objectRootViolations(schema: JsonSchema): string[] {
  const errors: string[] = [];
  if (schema['type'] !== 'object') errors.push('root: type is not "object"');
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    if (key in schema) errors.push(`root: ${key} at the top level`);
  return errors;
}

/** Anthropic `input_schema`. */
export function anthropicViolations(schema: JsonSchema): string[] {
  return [...objectRootViolations(schema), ...draft2020Violations(schema)];
}

/** OpenAI `parameters` without strict mode. */
export function openAIViolations(schema: JsonSchema): string[] {
  const errors = anthropicViolations(schema);
  walk(schema, (node, path, keyword) => {
    if (typeof node === 'boolean' && keyword !== 'additionalProperties')
      errors.push(`${path}: boolean schema`);
    if (!isObject(node)) return;
    if (types(node).includes('array') && !isObject(node['items']))
      errors.push(`${path}: array schema missing items`);
    if ('prefixItems' in node) errors.push(`${path}: prefixItems`);
  });
  return errors;
}

const strictKeywords = new Set([
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
const strictFormats = new Set([
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
const strictTypes = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);

/** OpenAI `parameters` with `strict: true`. */
export function openAIStrictViolations(schema: JsonSchema): string[] {
  const errors = objectRootViolations(schema);
  let properties = 0;
  let budget = 0;
  let enumValues = 0;
  walk(schema, (node, path, keyword) => {
    if (!isObject(node)) {
      if (keyword !== 'additionalProperties') errors.push(`${path}: boolean schema`);
      return;
    }
    if (keyword === '$defs') budget += path.split('/').at(-1)?.length ?? 0;
    for (const key of Object.keys(node)) if (!strictKeywords.has(key)) errors.push(`${path}: keyword ${key}`);
    if (typeof node['$ref'] === 'string') {
      if (Object.keys(node).length > 1) errors.push(`${path}: $ref with sibling keywords`);
      if (
        !(node['$ref'] === '#' || /^#\/\$defs\/[^/]+$/.test(node['$ref'])) ||
        !resolves(schema, node['$ref'])
      )
        errors.push(`${path}: $ref ${node['$ref']} is not a $defs entry`);
      return;
    }
    for (const type of types(node)) if (!strictTypes.has(type)) errors.push(`${path}: type ${type}`);
    if (node['format'] !== undefined && !strictFormats.has(String(node['format'])))
      errors.push(`${path}: format ${String(node['format'])}`);
    if (
      types(node).length === 0 &&
      !('enum' in node) &&
      !('const' in node) &&
      !('anyOf' in node) &&
      keyword !== '$defs'
    )
      errors.push(`${path}: no type`);
    if (types(node).includes('object') || isObject(node['properties'])) {
      if (node['additionalProperties'] !== false) errors.push(`${path}: additionalProperties is not false`);
      const names = Object.keys(isObject(node['properties']) ? node['properties'] : {});
      const required = Array.isArray(node['required']) ? node['required'].map(String) : [];
      for (const name of names) if (!required.includes(name)) errors.push(`${path}: ${name} is not required`);
      properties += names.length;
      budget += names.join('').length;
    }
    if (types(node).includes('array') && !isObject(node['items']))
      errors.push(`${path}: array without items`);
    if (Array.isArray(node['enum'])) {
      const text = node['enum'].map(String).join('');
      enumValues += node['enum'].length;
      budget += text.length;
      if (node['enum'].length > 250 && text.length > 15_000)
        errors.push(`${path}: enum over 15,000 characters`);
    }
    if (node['const'] !== undefined) budget += String(node['const']).length;
  });
  const depth = (node: unknown, seen: ReadonlySet<string>): number => {
    if (!isObject(node)) return 0;
    if (typeof node['$ref'] === 'string') {
      const ref = node['$ref'];
      if (seen.has(ref) || !ref.startsWith('#/$defs/')) return 0;
      const target = (schema['$defs'] as JsonSchema | undefined)?.[ref.slice('#/$defs/'.length)];
      return depth(target, new Set([...seen, ref]));
    }
    const children = [
      ...Object.values(isObject(node['properties']) ? node['properties'] : {}),
      ...(node['items'] !== undefined ? [node['items']] : []),
      ...(Array.isArray(node['anyOf']) ? node['anyOf'] : []),
    ];
    const below = Math.max(0, ...children.map((child) => depth(child, seen)));
    return below + (isObject(node['properties']) ? 1 : 0);
  };
  if (depth(schema, new Set()) > 10) errors.push('nesting deeper than 10 levels');
  if (properties > 5_000) errors.push('more than 5,000 properties');
  if (enumValues > 1_000) errors.push('more than 1,000 enum values');
  if (budget > 120_000) errors.push('names and enum values over 120,000 characters');
  return errors;
}

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
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const geminiTypes = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const geminiFormats: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

function geminiNode(node: unknown, path: string, errors: string[]): void {
  if (!isObject(node)) {
    errors.push(`${path}: not a Schema object`);
    return;
  }
  for (const key of Object.keys(node)) if (!geminiKeywords.has(key)) errors.push(`${path}: field ${key}`);
  const type = node['type'];
  if (type !== undefined && (typeof type !== 'string' || !geminiTypes.has(type)))
    errors.push(`${path}: type ${JSON.stringify(type)}`);
  if (node['enum'] !== undefined) {
    const values = node['enum'];
    if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === 'string'))
      errors.push(`${path}: enum is not a list of strings`);
    if (type !== 'string') errors.push(`${path}: enum on type ${String(type)}`);
  }
  if (node['format'] !== undefined && !geminiFormats[String(type)]?.has(String(node['format'])))
    errors.push(`${path}: format ${String(node['format'])} on ${String(type)}`);
  if (node['nullable'] !== undefined && typeof node['nullable'] !== 'boolean')
    errors.push(`${path}: nullable`);
  for (const key of [
    'maxItems',
    'minItems',
    'minProperties',
    'maxProperties',
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
  ]) {
    if (node[key] !== undefined && typeof node[key] !== 'number')
      errors.push(`${path}: ${key} is not a number`);
  }
  if (typeof node['pattern'] === 'string' && /\(\?<?[=!]|\\[1-9]|\\k</.test(node['pattern']))
    errors.push(`${path}: pattern needs lookaround or back-references (not RE2)`);
  if (node['properties'] !== undefined) {
    if (!isObject(node['properties'])) errors.push(`${path}: properties`);
    else {
      if (Object.keys(node['properties']).length === 0) errors.push(`${path}: empty properties`);
      for (const [name, child] of Object.entries(node['properties']))
        geminiNode(child, `${path}/${name}`, errors);
    }
  }
  if (node['required'] !== undefined) {
    const names = Object.keys(isObject(node['properties']) ? node['properties'] : {});
    if (!Array.isArray(node['required']) || !node['required'].every((name) => names.includes(String(name))))
      errors.push(`${path}: required names a property that is not listed`);
  }
  if (type === 'array' && node['items'] === undefined) errors.push(`${path}: array without items`);
  if (node['items'] !== undefined) geminiNode(node['items'], `${path}/items`, errors);
  if (node['anyOf'] !== undefined) {
    if (!Array.isArray(node['anyOf']) || node['anyOf'].length === 0) errors.push(`${path}: anyOf`);
    else
      for (const [index, child] of node['anyOf'].entries())
        geminiNode(child, `${path}/anyOf/${index}`, errors);
  }
}

/** Gemini `parameters` (undefined: the declaration has none, which is valid). */
export function geminiViolations(parameters: JsonSchema | undefined): string[] {
  if (parameters === undefined) return [];
  const errors: string[] = [];
  if (parameters['type'] !== 'object') errors.push('root: type is not "object"');
  if (!isObject(parameters['properties']) || Object.keys(parameters['properties']).length === 0)
    errors.push('root: an OBJECT without properties (send no parameters instead)');
  geminiNode(parameters, '', errors);
  return errors;
}

/** Gemini's Schema read as JSON Schema, to check instances against what Gemini was told. */
export function geminiAsJsonSchema(node: unknown): unknown {
  if (!isObject(node)) return {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'format' || key === 'propertyOrdering' || key === 'example') continue;
    if (key === 'properties' && isObject(value)) {
      out['properties'] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, geminiAsJsonSchema(child)]),
      );
    } else if (key === 'items') out['items'] = geminiAsJsonSchema(value);
    else if (key === 'anyOf' && Array.isArray(value)) out['anyOf'] = value.map(geminiAsJsonSchema);
    else out[key] = value;
  }
  if (node['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum'])) out['enum'] = [...out['enum'], null];
    if (Array.isArray(out['anyOf'])) out['anyOf'] = [...out['anyOf'], { type: 'null' }];
  }
  return out;
}
