import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { normalizeJsonSchema } from './schema-normalize.ts';
import type { JsonSchema } from './tool.ts';

/** One problem with a tool input: where (property path) and what, in words for the model. */
export interface InputIssue {
  /** Property names and array indexes from the root of the input to the bad value. */
  path: Array<string | number>;
  /** `missing` (a required property is absent), `unexpected` (a property the schema does not allow), or `invalid`. */
  kind: 'missing' | 'unexpected' | 'invalid';
  /** What is wrong, without the path, without a final period. */
  message: string;
}

/** Checks one input against a schema; an empty list means valid. */
export type InputValidator = (input: unknown) => InputIssue[];

// ajv is loaded on the first check, not when efferent starts: most sessions and commands never
// validate a JSON Schema, and loading it costs more than compiling a schema.
const load = createRequire(import.meta.url);
let shared: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  if (!shared) {
    const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const addFormats = load('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
    shared = addFormats(
      new Ajv({
        strict: false,
        allErrors: true,
        validateSchema: false,
        logger: false,
        allowUnionTypes: true,
      }),
    );
  }
  return shared;
}

function pathOf(instancePath: string): Array<string | number> {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function describe(error: ErrorObject): InputIssue {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(params['missingProperty'])], kind: 'missing', message: 'is required' };
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return {
        path: [...path, String(params['additionalProperty'] ?? params['unevaluatedProperty'])],
        kind: 'unexpected',
        message: 'is not a parameter of this tool',
      };
    case 'type':
      return { path, kind: 'invalid', message: `must be ${String(params['type']).replace(/,/g, ' or ')}` };
    case 'enum':
      return {
        path,
        kind: 'invalid',
        message: `must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`,
      };
    case 'const':
      return { path, kind: 'invalid', message: `must be ${JSON.stringify(params['allowedValue'])}` };
    case 'oneOf':
    case 'anyOf':
      return { path, kind: 'invalid', message: 'does not match any of the allowed forms' };
    default:
      return { path, kind: 'invalid', message: error.message ?? `fails the ${error.keyword} rule` };
  }
}

/**
 * Issues in a useful order: errors inside an `anyOf`/`oneOf` alternative are kept only when they all
 * name the same spot, so a discriminated union reports "does not match" plus the nearest cause
 * instead of one complaint per alternative.
 */
function summarize(errors: readonly ErrorObject[]): InputIssue[] {
  const unions = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const insideUnion = (error: ErrorObject) =>
    unions.some(
      (union) =>
        union !== error &&
        error.schemaPath.startsWith(`${union.schemaPath}/`) &&
        error.instancePath.startsWith(union.instancePath),
    );
  const direct = errors.filter((error) => !insideUnion(error));
  const issues = direct.map(describe);
  for (const union of unions.filter((error) => direct.includes(error))) {
    const causes = errors.filter(
      (error) =>
        error !== union && error.schemaPath.startsWith(`${union.schemaPath}/`) && error.keyword !== 'if',
    );
    const deepest = causes
      .filter((error) => error.keyword !== 'const' && error.keyword !== 'enum')
      .sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
    const discriminators = causes.filter((error) => error.keyword === 'const' || error.keyword === 'enum');
    const target = issues[direct.indexOf(union)];
    if (!target) continue;
    const allowed = [
      ...new Set(
        discriminators.flatMap((error) => {
          const params = error.params as Record<string, unknown>;
          return error.keyword === 'const'
            ? [params['allowedValue']]
            : ((params['allowedValues'] as unknown[]) ?? []);
        }),
      ),
    ];
    if (
      allowed.length > 1 &&
      discriminators.every((error) => error.instancePath === discriminators[0]?.instancePath)
    ) {
      target.message += ` (${pathOf(discriminators[0]?.instancePath ?? '').join('.') || 'the value'} must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')})`;
    } else if (deepest) {
      const cause = describe(deepest);
      const where = cause.path.join('.');
      target.message += `; for example, ${where ? `\`${where}\` ` : ''}${cause.message}`;
    }
  }
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path.join('.')}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A validator for a tool's own JSON Schema (any draft: it is read as draft 2020-12 after
 * {@link normalizeJsonSchema}), with formats checked. Compiled on first use. When the schema itself
 * cannot be compiled (a broken schema from a server), the validator accepts every input and the
 * server stays the judge; `compileError` says why.
 */
export function createInputValidator(schema: JsonSchema): InputValidator & { compileError?: string } {
  let compiled: ValidateFunction | null | undefined;
  let compileError: string | undefined;
  const validate = ((input: unknown): InputIssue[] => {
    if (compiled === undefined) {
      try {
        compiled = ajv().compile(normalizeJsonSchema(schema));
      } catch (error) {
        compiled = null;
        compileError = error instanceof Error ? error.message : String(error);
        Object.assign(validate, { compileError });
      }
    }
    if (!compiled || compiled(input)) return [];
    return summarize(compiled.errors ?? []);
  }) as InputValidator & { compileError?: string };
  return validate;
}

/** One line per issue naming the parameter, for a tool_result the model reads. */
export function formatInputIssues(issues: readonly InputIssue[]): string[] {
  return issues.map((issue) => {
    const where = issue.path.length === 0 ? 'The input' : `The parameter \`${issue.path.join('.')}\``;
    if (issue.kind === 'missing') return `The required parameter \`${issue.path.join('.')}\` is missing.`;
    if (issue.kind === 'unexpected') return `Unexpected parameter \`${issue.path.join('.')}\`; remove it.`;
    return `${where} ${issue.message}.`;
  });
}
