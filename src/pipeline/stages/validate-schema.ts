import type { z } from 'zod';
import {
  type AnyTool,
  EfferentError,
  ErrorCodes,
  formatInputIssues,
  type InputIssue,
  isInternalField,
} from '../../core/index.ts';
import { type CallFailure, type StageResult, toolUseError } from '../types.ts';

/**
 * Removes top-level keys starting with `_`. Internal fields (such as Bash's `_simulatedSedEdit`)
 * carry what a person approved; only a permission decision may set them, never the model or a hook.
 */
export function stripInternalFields(input: Record<string, unknown>): Record<string, unknown> {
  // The schema's parse copies the input anyway: without an internal field there is nothing to strip.
  if (!Object.keys(input).some(isInternalField)) return input;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!isInternalField(key)) kept[key] = value;
  return kept;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the input' : `\`${path.map(String).join('.')}\``;
}

/** One line per issue: which parameter, and what was expected instead of what arrived. */
export function formatSchemaIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  return issues.map((issue) => {
    const where = pathText(issue.path);
    switch (issue.code) {
      case 'invalid_type': {
        const received = valueAt(input, issue.path);
        if (received === undefined)
          return `The required parameter ${where} is missing (expected ${issue.expected}).`;
        return `The parameter ${where} must be ${issue.expected}, but ${typeName(received)} was given.`;
      }
      case 'unrecognized_keys':
        return `Unexpected parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `\`${key}\``).join(', ')}${issue.path.length > 0 ? ` in ${where}` : ''}; remove ${issue.keys.length > 1 ? 'them' : 'it'}.`;
      case 'invalid_value':
        return `The parameter ${where} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
      case 'custom': {
        // Issues found by a tool's own JSON Schema (MCP tools) carry their structured form.
        const inputIssue = issue.params?.['inputIssue'] as InputIssue | undefined;
        if (inputIssue) return formatInputIssues([inputIssue])[0] ?? `The parameter ${where} is invalid.`;
        return `The parameter ${where} is invalid: ${issue.message}.`;
      }
      default:
        return `The parameter ${where} is invalid: ${issue.message}.`;
    }
  });
}

/** Options of {@link validateSchema}. */
export interface SchemaValidationOptions {
  /** The tool is deferred and its schema was never loaded: the model guessed its parameters. */
  schemaNotLoaded?: boolean;
  /** Keep `_` fields (only for input that came from a permission decision). */
  allowInternalFields?: boolean;
}

/**
 * Step 3: parse the input with the tool's zod schema, after stripping internal fields. Errors name
 * each bad parameter; for a deferred tool whose schema was not loaded, they say to load it first.
 */
export function validateSchema(
  tool: AnyTool,
  rawInput: Record<string, unknown>,
  options: SchemaValidationOptions = {},
): StageResult<Record<string, unknown>> {
  const input = options.allowInternalFields ? rawInput : stripInternalFields(rawInput);
  const parsed = tool.inputSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  const lines = formatSchemaIssues(parsed.error.issues, input);
  let text = `InputValidationError: ${tool.name} failed due to the following ${lines.length === 1 ? 'issue' : 'issues'}:\n${lines.join('\n')}`;
  if (options.schemaNotLoaded) {
    text += `\n\nThe schema of ${tool.name} has not been loaded, so its parameters were guessed. Call ToolSearch with query "select:${tool.name}" to load it, then call ${tool.name} again.`;
  }
  const message = toolUseError(text);
  return {
    ok: false,
    failure: {
      message,
      outcome: 'invalid_input',
      error: new EfferentError(ErrorCodes.inputInvalid, 'input failed schema validation'),
    },
  };
}

/**
 * Step 3 for a deferred tool the model never loaded: it has only seen the name, so whatever it sent
 * is a guess. The result says exactly how to load the tool, never that the tool is unknown.
 */
export function deferredNotLoaded(tool: AnyTool): CallFailure {
  return {
    message: toolUseError(
      `${tool.name} is a deferred tool and its schema has not been loaded yet, so it cannot be called. Call ToolSearch with query "select:${tool.name}" to load it, then call ${tool.name} again.`,
    ),
    outcome: 'invalid_input',
    error: new EfferentError(ErrorCodes.inputInvalid, 'deferred tool called before its schema was loaded'),
  };
}
