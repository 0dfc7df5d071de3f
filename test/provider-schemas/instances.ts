import fc from 'fast-check';
import type { JsonSchema } from '../../src/core/index.ts';

/**
 * Candidate instances of a JSON Schema, built with fast-check from the schema's own keywords (types,
 * enums, consts, formats, patterns, bounds, tuples, maps, unions, refs). Candidates are not always
 * valid (cross-keyword rules such as `if`/`then` or `not` are not solved), so callers keep the ones
 * the original schema accepts.
 */
export function sampleInstances(schema: JsonSchema, count: number, seed: number): unknown[] {
  return fc.sample(arbitraryFor(schema, schema, 0), { numRuns: count, seed });
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const maxDepth = 14;
const anyJson = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));

function resolve(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root;
  let node: unknown = root;
  for (const raw of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else return undefined;
  }
  return node;
}

function stringFor(node: JsonSchema): fc.Arbitrary<string> {
  const min = typeof node['minLength'] === 'number' ? node['minLength'] : 0;
  const max = Math.min(
    typeof node['maxLength'] === 'number' ? node['maxLength'] : Math.max(min, 12),
    Math.max(min, 40),
  );
  switch (node['format']) {
    case 'date-time':
      return fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((date) => date.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
    case 'ipv4':
      return fc.ipV4();
    case 'hostname':
      return fc.domain();
  }
  if (typeof node['pattern'] === 'string') {
    try {
      // Length bounds are left to the caller's filter: a generator-side filter could never finish.
      return fc.stringMatching(new RegExp(node['pattern']));
    } catch {
      // a pattern JavaScript cannot compile: plain strings, filtered by the caller
    }
  }
  return fc.string({ minLength: min, maxLength: max });
}

function numberFor(node: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const num = (key: string) => (typeof node[key] === 'number' ? (node[key] as number) : undefined);
  const exclusiveLow = num('exclusiveMinimum');
  const exclusiveHigh = num('exclusiveMaximum');
  const step = num('multipleOf');
  if (integer || step !== undefined) {
    const low = num('minimum') ?? (exclusiveLow !== undefined ? Math.floor(exclusiveLow) + 1 : -1000);
    const high = num('maximum') ?? (exclusiveHigh !== undefined ? Math.ceil(exclusiveHigh) - 1 : 1000);
    const arb = fc.integer({ min: Math.ceil(Math.min(low, high)), max: Math.floor(Math.max(low, high)) });
    return step === undefined ? arb : arb.map((value) => Math.round(value / step) * step);
  }
  const low = num('minimum') ?? exclusiveLow ?? -1000;
  const high = num('maximum') ?? exclusiveHigh ?? 1000;
  return fc.double({
    min: Math.min(low, high),
    max: Math.max(low, high),
    minExcluded: num('minimum') === undefined && exclusiveLow !== undefined,
    maxExcluded: num('maximum') === undefined && exclusiveHigh !== undefined,
    noNaN: true,
    noDefaultInfinity: true,
  });
}

function arbitraryFor(input: unknown, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (input === true || input === undefined) return anyJson;
  if (!isObject(input)) return fc.constant(undefined);
  if (depth > maxDepth) return fc.constant(undefined);
  let node = input;
  if (typeof node['$ref'] === 'string') {
    const { $ref: ref, ...siblings } = node;
    const target = resolve(root, ref);
    node = isObject(target) ? { ...target, ...siblings } : siblings;
    depth += 1;
  }
  if (node['const'] !== undefined) return fc.constant(node['const']);
  if (Array.isArray(node['enum']) && node['enum'].length > 0) return fc.constantFrom(...node['enum']);
  if (Array.isArray(node['allOf'])) {
    const merged: JsonSchema = { ...node };
    delete merged['allOf'];
    for (const part of node['allOf']) {
      const resolved =
        isObject(part) && typeof part['$ref'] === 'string' ? resolve(root, part['$ref']) : part;
      if (!isObject(resolved)) continue;
      for (const [key, value] of Object.entries(resolved)) {
        if (key === 'properties' && isObject(value))
          merged['properties'] = { ...(merged['properties'] as JsonSchema), ...value };
        else if (key === 'required' && Array.isArray(value))
          merged['required'] = [...((merged['required'] as unknown[]) ?? []), ...value];
        else merged[key] ??= value;
      }
    }
    return arbitraryFor(merged, root, depth);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list) && list.length > 0) {
      const { [key]: _list, ...rest } = node;
      return fc.oneof(
        ...list.map((branch) =>
          arbitraryFor(isObject(branch) ? { ...rest, ...branch } : branch, root, depth + 1),
        ),
      );
    }
  }
  const declared = node['type'];
  let types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.map(String) : [];
  if (types.length === 0) {
    if (isObject(node['properties']) || node['additionalProperties'] !== undefined) types = ['object'];
    else if (node['items'] !== undefined || node['prefixItems'] !== undefined) types = ['array'];
    else return anyJson;
  }
  return fc.oneof(...types.map((type) => arbitraryForType(node, type, root, depth)));
}

function arbitraryForType(
  node: JsonSchema,
  type: string,
  root: JsonSchema,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringFor(node);
    case 'integer':
      return numberFor(node, true);
    case 'number':
      return numberFor(node, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = typeof node['minItems'] === 'number' ? node['minItems'] : 0;
      const maxLength = Math.max(
        minLength,
        Math.min(typeof node['maxItems'] === 'number' ? node['maxItems'] : 3, 3),
      );
      const prefix = Array.isArray(node['prefixItems'])
        ? node['prefixItems']
        : Array.isArray(node['items'])
          ? node['items']
          : undefined;
      if (prefix) {
        const rest = Array.isArray(node['items']) ? node['additionalItems'] : node['items'];
        const head = fc.tuple(...prefix.map((child) => arbitraryFor(child, root, depth + 1)));
        if (rest === false) return head;
        return fc
          .tuple(head, fc.array(arbitraryFor(rest, root, depth + 1), { maxLength: 2 }))
          .map(([first, more]) => [...first, ...more]);
      }
      const items = arbitraryFor(node['items'], root, depth + 1);
      return node['uniqueItems'] === true
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = isObject(node['properties']) ? node['properties'] : {};
      const required = new Set(Array.isArray(node['required']) ? node['required'].map(String) : []);
      const named = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([name, child]) => [name, arbitraryFor(child, root, depth + 1)]),
        ),
        { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) },
      );
      const extras: Array<fc.Arbitrary<Record<string, unknown>>> = [];
      if (isObject(node['patternProperties'])) {
        for (const [pattern, child] of Object.entries(node['patternProperties'])) {
          extras.push(
            fc.dictionary(fc.stringMatching(new RegExp(pattern)), arbitraryFor(child, root, depth + 1), {
              maxKeys: 2,
            }),
          );
        }
      }
      const additional = node['additionalProperties'];
      if (additional !== false && additional !== undefined && Object.keys(properties).length === 0) {
        const keys = isObject(node['propertyNames'])
          ? stringFor(node['propertyNames'])
          : fc.string({ minLength: 1, maxLength: 8 });
        extras.push(fc.dictionary(keys, arbitraryFor(additional, root, depth + 1), { maxKeys: 3 }));
      }
      // Required properties the schema names but does not describe still have to be there.
      const bare = [...required].filter((name) => !(name in properties));
      return fc
        .tuple(named, fc.tuple(...extras), fc.tuple(...bare.map(() => anyJson)))
        .map(([base, more, values]) => {
          const out: Record<string, unknown> = {};
          for (const extra of more) Object.assign(out, extra);
          bare.forEach((name, index) => {
            out[name] = values[index];
          });
          for (const [key, value] of Object.entries(base)) if (value !== undefined) out[key] = value;
          return out;
        });
    }
    default:
      return anyJson;
  }
}
