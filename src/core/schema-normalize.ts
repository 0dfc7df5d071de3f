import type { JsonSchema } from './tool.ts';

/** A plain JSON object (not an array, not null). */
export function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords whose value is one subschema. */
const singleSchemaKeywords = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
] as const;
/** Keywords whose value is a list of subschemas. */
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
const schemaMapKeywords = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;

/** Identifiers and dialect markers: meaningless once a schema is embedded in a tool definition. */
const droppedKeywords = new Set(['$schema', '$id', 'id', '$comment', '$anchor', '$dynamicAnchor']);

function normalizeRef(ref: string): string {
  return ref.startsWith('#/definitions/') ? `#/$defs/${ref.slice('#/definitions/'.length)}` : ref;
}

function normalizeNode(node: unknown): unknown {
  if (typeof node === 'boolean') return node;
  if (!isSchemaObject(node)) return {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (droppedKeywords.has(key) && (key !== 'id' || typeof value === 'string')) continue;
    if (key === '$ref' && typeof value === 'string') {
      out['$ref'] = normalizeRef(value);
    } else if ((singleSchemaKeywords as readonly string[]).includes(key)) {
      if (key === 'items' && Array.isArray(value)) {
        out['prefixItems'] = value.map((child) => normalizeNode(child));
      } else if (key === 'additionalItems') {
        // handled with `items` below
      } else {
        out[key] = normalizeNode(value);
      }
    } else if ((schemaListKeywords as readonly string[]).includes(key)) {
      if (Array.isArray(value)) out[key] = value.map((child) => normalizeNode(child));
    } else if ((schemaMapKeywords as readonly string[]).includes(key)) {
      if (!isSchemaObject(value)) continue;
      const target = key === 'definitions' ? '$defs' : key;
      const mapped = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, normalizeNode(child)]),
      );
      out[target] = { ...(isSchemaObject(out[target]) ? out[target] : {}), ...mapped };
    } else if (key === 'dependencies' && isSchemaObject(value)) {
      for (const [name, dependency] of Object.entries(value)) {
        if (Array.isArray(dependency)) {
          out['dependentRequired'] = {
            ...((out['dependentRequired'] as JsonSchema) ?? {}),
            [name]: dependency,
          };
        } else {
          out['dependentSchemas'] = {
            ...((out['dependentSchemas'] as JsonSchema) ?? {}),
            [name]: normalizeNode(dependency),
          };
        }
      }
    } else {
      out[key] = value;
    }
  }
  // Draft 4: `exclusiveMinimum: true` qualified `minimum`; since draft 6 the bound itself is the value.
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
  // Draft 2019 and earlier: `items: [...]` was a tuple and `additionalItems` the rest.
  if (Array.isArray(node['items']) && node['additionalItems'] !== undefined) {
    out['items'] = normalizeNode(node['additionalItems']);
  }
  // OpenAPI 3.0: `nullable: true` beside a type.
  if (node['nullable'] === true && typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
    delete out['nullable'];
  } else if (typeof node['nullable'] === 'boolean') {
    delete out['nullable'];
  }
  return out;
}

/**
 * A self-contained copy of a JSON Schema in draft 2020-12 form, whatever draft it was written in:
 * `definitions` become `$defs` (and their `$ref`s follow), tuple `items` arrays become `prefixItems`,
 * draft-4 boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, `dependencies` splits into
 * `dependentRequired`/`dependentSchemas`, OpenAPI's `nullable` becomes a `null` type, and dialect
 * markers (`$schema`, `$id`, `$comment`) are dropped. It accepts exactly the same instances.
 */
export function normalizeJsonSchema(schema: JsonSchema): JsonSchema {
  const out = normalizeNode(schema);
  return isSchemaObject(out) ? out : {};
}

/** The schema a local `#/...` JSON pointer names, or undefined. */
export function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isSchemaObject(node)) node = node[part];
    else return undefined;
  }
  return node === undefined ? undefined : node;
}

/** Calls `visit` on every subschema (the root included), with the JSON path to it. */
export function forEachSubschema(
  schema: unknown,
  visit: (node: JsonSchema, path: readonly string[]) => void,
  path: readonly string[] = [],
): void {
  if (!isSchemaObject(schema)) return;
  visit(schema, path);
  for (const key of singleSchemaKeywords) {
    if (schema[key] !== undefined) forEachSubschema(schema[key], visit, [...path, key]);
  }
  for (const key of schemaListKeywords) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const [index, child] of list.entries())
        forEachSubschema(child, visit, [...path, key, String(index)]);
  }
  for (const key of schemaMapKeywords) {
    const map = schema[key];
    if (isSchemaObject(map)) {
      for (const [name, child] of Object.entries(map)) forEachSubschema(child, visit, [...path, key, name]);
    }
  }
}

/** The `type` keyword as a list (empty when absent). */
export function typeList(node: JsonSchema): string[] {
  const type = node['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

/** A shallow copy of a schema with `map` applied to each direct subschema. */
export function mapSubschemas(
  node: JsonSchema,
  map: (child: unknown, keyword: string) => unknown,
): JsonSchema {
  const out: JsonSchema = { ...node };
  for (const key of singleSchemaKeywords) if (out[key] !== undefined) out[key] = map(out[key], key);
  for (const key of schemaListKeywords) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((child) => map(child, key));
  }
  for (const key of schemaMapKeywords) {
    const entries = out[key];
    if (isSchemaObject(entries)) {
      out[key] = Object.fromEntries(Object.entries(entries).map(([name, child]) => [name, map(child, key)]));
    }
  }
  return out;
}

function decodePointerPart(part: string): string {
  return decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Every local `$ref` then points at a direct entry of `$defs` (or at nothing): a ref into the tree
 * (`#/properties/a/items`, as zod-to-json-schema writes them) or to the root (`#`) gets a copy of its
 * target in `$defs`, so emitters may reshape the tree without breaking refs. A ref that resolves to
 * nothing (or to another document) is removed, which leaves its siblings: a looser schema.
 */
export function hoistRefs(schema: JsonSchema): JsonSchema {
  const sourceDefs = isSchemaObject(schema['$defs']) ? schema['$defs'] : {};
  const defs: JsonSchema = {};
  const names = new Map<string, string>();
  const target = (ref: string): string | undefined => {
    const parts = ref.startsWith('#/') ? ref.slice(2).split('/') : [];
    if (
      parts.length === 2 &&
      parts[0] === '$defs' &&
      sourceDefs[decodePointerPart(parts[1] ?? '')] !== undefined
    )
      return ref;
    const known = names.get(ref);
    if (known) return known;
    let resolved = resolveLocalRef(schema, ref);
    if (resolved === undefined || (typeof resolved !== 'boolean' && !isSchemaObject(resolved)))
      return undefined;
    if (ref === '#' && isSchemaObject(resolved)) {
      const { $defs: _defs, ...rest } = resolved;
      resolved = rest;
    }
    let name = ref === '#' ? 'root' : `ref${names.size + 1}`;
    while (sourceDefs[name] !== undefined || defs[name] !== undefined) name = `${name}_`;
    const pointer = `#/$defs/${name}`;
    names.set(ref, pointer);
    defs[name] = rewrite(resolved);
    return pointer;
  };
  const rewrite = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    const out = mapSubschemas(node, (child, keyword) => (keyword === '$defs' ? child : rewrite(child)));
    if (typeof out['$ref'] === 'string') {
      const pointer = target(out['$ref']);
      if (pointer === undefined) delete out['$ref'];
      else out['$ref'] = pointer;
    }
    return out;
  };
  const { $defs: _defs, ...body } = schema;
  const root = rewrite(body) as JsonSchema;
  for (const [name, def] of Object.entries(sourceDefs)) defs[name] = rewrite(def);
  const all = { ...defs };
  if (Object.keys(all).length > 0) root['$defs'] = all;
  return root;
}

/** Follows `$ref`s (with their siblings merged over the target) until a schema without one. */
export function derefNode(root: JsonSchema, node: unknown, limit = 16): JsonSchema {
  let current: unknown = node;
  for (let step = 0; step < limit; step++) {
    if (current === true) return {};
    if (current === false) return { not: {} };
    if (!isSchemaObject(current)) return {};
    if (typeof current['$ref'] !== 'string') return current;
    const { $ref: ref, ...siblings } = current;
    const resolved = resolveLocalRef(root, ref);
    current = isSchemaObject(resolved) ? { ...resolved, ...siblings } : siblings;
  }
  return {};
}

function isOpenForKey(branch: JsonSchema): unknown {
  const additional = branch['additionalProperties'];
  if (additional === false || isSchemaObject(branch['patternProperties']))
    return additional === false ? false : {};
  return additional === undefined || additional === true ? {} : additional;
}

function anyOfSchemas(schemas: unknown[]): unknown {
  if (
    schemas.some((schema) => schema === true || (isSchemaObject(schema) && Object.keys(schema).length === 0))
  )
    return {};
  const distinct = [...new Map(schemas.map((schema) => [JSON.stringify(schema), schema])).values()];
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

function describeBranch(branch: JsonSchema): string {
  const required = Array.isArray(branch['required']) ? branch['required'].map(String) : [];
  const consts = Object.entries(isSchemaObject(branch['properties']) ? branch['properties'] : {})
    .filter(([, child]) => isSchemaObject(child) && child['const'] !== undefined)
    .map(([name, child]) => `${name}=${JSON.stringify((child as JsonSchema)['const'])}`);
  const parts = [...consts, ...(required.length > 0 ? [`requires ${required.join(', ')}`] : [])];
  return parts.length > 0 ? parts.join('; ') : 'any object';
}

/**
 * The root as one plain `type: "object"` schema, as Anthropic, OpenAI and Gemini require: a root
 * `$ref` is followed, a root `allOf` is merged (a property named in several parts keeps all its
 * schemas in an `allOf`), and a root `anyOf`/`oneOf` becomes one object whose properties are the
 * union of the alternatives' and whose required list is what every alternative requires. The result
 * accepts every instance the input accepted; the alternatives are summed up in the description.
 * Expects a schema that went through {@link hoistRefs}.
 */
export function objectRoot(schema: JsonSchema): JsonSchema {
  const defs = schema['$defs'];
  let root = derefNode(schema, schema);
  if (Array.isArray(root['allOf'])) {
    const parts = [root, ...root['allOf'].map((part) => derefNode(schema, part))];
    const properties: Record<string, unknown[]> = {};
    const required = new Set<string>();
    for (const part of parts) {
      for (const [name, child] of Object.entries(
        isSchemaObject(part['properties']) ? part['properties'] : {},
      )) {
        const list = properties[name] ?? [];
        list.push(child);
        properties[name] = list;
      }
      if (Array.isArray(part['required'])) for (const name of part['required']) required.add(String(name));
    }
    const merged: JsonSchema = { ...root };
    delete merged['allOf'];
    delete merged['additionalProperties'];
    if (parts.every((part) => part['additionalProperties'] === false)) merged['additionalProperties'] = false;
    for (const part of parts.slice(1)) {
      for (const key of ['anyOf', 'oneOf'] as const) {
        if (Array.isArray(part[key]) && merged[key] === undefined) merged[key] = part[key];
      }
      if (merged['description'] === undefined && typeof part['description'] === 'string')
        merged['description'] = part['description'];
    }
    merged['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, list]) => [name, list.length === 1 ? list[0] : { allOf: list }]),
    );
    if (required.size > 0) merged['required'] = [...required];
    root = merged;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = root[key];
    if (!Array.isArray(list)) continue;
    const branches = list.map((branch) => objectRoot({ ...derefNode(schema, branch), $defs: defs }));
    const rootProperties = isSchemaObject(root['properties']) ? root['properties'] : {};
    const names = new Set(branches.flatMap((branch) => Object.keys(branch['properties'] ?? {})));
    const properties: JsonSchema = { ...rootProperties };
    for (const name of names) {
      if (name in rootProperties) continue;
      const options: unknown[] = [];
      for (const branch of branches) {
        const declared = isSchemaObject(branch['properties']) ? branch['properties'][name] : undefined;
        if (declared !== undefined) options.push(declared);
        else {
          const open = isOpenForKey(branch);
          if (open !== false) options.push(open);
        }
      }
      properties[name] = anyOfSchemas(options);
    }
    const branchRequired = branches.map(
      (branch) => new Set(Array.isArray(branch['required']) ? branch['required'].map(String) : []),
    );
    const common = [...(branchRequired[0] ?? [])].filter((name) =>
      branchRequired.every((set) => set.has(name)),
    );
    const required = [
      ...new Set([...(Array.isArray(root['required']) ? root['required'].map(String) : []), ...common]),
    ];
    const flattened: JsonSchema = { ...root, properties };
    delete flattened[key];
    if (required.length > 0) flattened['required'] = required;
    else delete flattened['required'];
    const allClosed = branches.every(
      (branch) => branch['additionalProperties'] === false && !isSchemaObject(branch['patternProperties']),
    );
    if (root['additionalProperties'] === undefined && allClosed && branches.length > 0)
      flattened['additionalProperties'] = false;
    const summary = `Accepts one of ${branches.length} forms: ${branches.map((branch, index) => `(${index + 1}) ${describeBranch(branch)}`).join('; ')}.`;
    flattened['description'] =
      typeof root['description'] === 'string' ? `${root['description']}\n${summary}` : summary;
    root = flattened;
  }
  const out: JsonSchema = { ...root, type: 'object' };
  if (!isSchemaObject(out['properties'])) out['properties'] = {};
  delete out['$ref'];
  if (defs !== undefined) out['$defs'] = defs;
  else delete out['$defs'];
  return out;
}
