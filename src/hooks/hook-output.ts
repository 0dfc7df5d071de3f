import { z } from 'zod';
import type { HookEvent, HookJSONOutput } from './types.ts';

/** Hook output strings longer than this do not go to the model inline, as in Claude Code. */
export const hookOutputCharLimit = 10_000;

/** Cuts a string at the hook output limit, saying how much was dropped (when it cannot be saved to a file). */
export function capHookText(text: string): string {
  if (text.length <= hookOutputCharLimit) return text;
  const dropped = text.length - hookOutputCharLimit;
  return `${text.slice(0, hookOutputCharLimit)}\n… [hook output truncated: ${dropped} more characters]`;
}

const permissionBehavior = z.enum(['allow', 'deny', 'ask', 'defer']);

/** Lenient on unknown keys (newer Claude Code fields must not break old runners), strict on known ones. */
export const hookJsonSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  async: z.boolean().optional(),
  asyncTimeout: z.number().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: permissionBehavior.optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      updatedToolOutput: z.unknown().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
      decision: z
        .looseObject({
          behavior: z.enum(['allow', 'deny']),
          updatedInput: z.record(z.string(), z.unknown()).optional(),
          updatedPermissions: z.array(z.unknown()).optional(),
          message: z.string().optional(),
          interrupt: z.boolean().optional(),
        })
        .optional(),
      retry: z.boolean().optional(),
    })
    .optional(),
});

/** Checks a hook's JSON against the output contract. */
export function parseHookJson(
  value: unknown,
): { ok: true; output: HookJSONOutput } | { ok: false; message: string } {
  const plain = plainHookOutput(value);
  if (plain !== undefined) return { ok: true, output: plain };
  const parsed = hookJsonSchema.safeParse(value);
  if (parsed.success) return { ok: true, output: parsed.data as HookJSONOutput };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  return { ok: false, message: `hook output does not match the hook JSON format: ${issues.join('; ')}` };
}

type FieldCheck = (value: unknown) => boolean;
const isBoolean: FieldCheck = (value) => typeof value === 'boolean';
const isString: FieldCheck = (value) => typeof value === 'string';
const isFiniteNumber: FieldCheck = (value) => typeof value === 'number' && Number.isFinite(value);
const oneOf =
  (...allowed: string[]): FieldCheck =>
  (value) =>
    typeof value === 'string' && allowed.includes(value);

/** The top-level fields that hold plain values, and what each must be. */
const plainTopFields: Readonly<Record<string, FieldCheck>> = {
  continue: isBoolean,
  stopReason: isString,
  suppressOutput: isBoolean,
  systemMessage: isString,
  decision: oneOf('approve', 'block'),
  reason: isString,
  async: isBoolean,
  asyncTimeout: isFiniteNumber,
};

/** The `hookSpecificOutput` fields that hold plain values, and what each must be. */
const plainSpecificFields: Readonly<Record<string, FieldCheck>> = {
  hookEventName: isString,
  permissionDecision: oneOf('allow', 'deny', 'ask', 'defer'),
  permissionDecisionReason: isString,
  additionalContext: isString,
  retry: isBoolean,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A copy of `value` when every key is a known plain field of the right type; undefined otherwise. */
function plainFields(value: unknown, fields: Readonly<Record<string, FieldCheck>>) {
  if (!isPlainObject(value)) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const check = Object.hasOwn(fields, key) ? fields[key] : undefined;
    const field = value[key];
    if (check === undefined || (field !== undefined && !check(field))) return undefined;
    copy[key] = field;
  }
  return copy;
}

/**
 * The common hook answer (plain fields only, all valid) checked without the schema, which costs
 * several microseconds per hook and call. Anything else (nested decisions, rewritten input or
 * output, unknown keys, a wrong type) is left to the schema, which also words the errors.
 */
export function plainHookOutput(value: unknown): HookJSONOutput | undefined {
  if (!isPlainObject(value)) return undefined;
  const { hookSpecificOutput, ...rest } = value;
  const top = plainFields(rest, plainTopFields);
  if (top === undefined) return undefined;
  if (Object.hasOwn(value, 'hookSpecificOutput')) {
    if (hookSpecificOutput === undefined) top['hookSpecificOutput'] = undefined;
    else {
      const specific = plainFields(hookSpecificOutput, plainSpecificFields);
      if (specific === undefined) return undefined;
      top['hookSpecificOutput'] = specific;
    }
  }
  return top as HookJSONOutput;
}

/** One hook's contribution before merging. */
export interface HookResult {
  hook: string;
  output?: HookJSONOutput;
  /** Plain (non-JSON) stdout of a successful hook. */
  plainText?: string;
  /** A blocking error: exit code 2 or an equivalent. */
  blocking?: string;
  /** A non-blocking failure. */
  error?: string;
}

/** Events where exit code 2 has no blocking meaning; its stderr is only reported. */
const exitTwoIgnored: ReadonlySet<HookEvent> = new Set([
  'PermissionRequest',
  'Notification',
  'SessionStart',
  'SessionEnd',
  'PermissionDenied',
  'SubagentStart',
]);

/**
 * Applies the exit-code contract to one command run: 0 = success (JSON when stdout starts with `{`,
 * else plain text); 2 = blocking, stderr is the reason and JSON is ignored; anything else = a
 * non-blocking error whose valid JSON still takes effect.
 */
export function interpretCommandExit(
  event: HookEvent,
  hook: string,
  run: { exitCode: number | null; stdout: string; stderr: string },
): HookResult {
  const result: HookResult = { hook };
  const stdout = run.stdout.trim();
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    const reason = stderr || `Blocked by hook ${hook} (exit code 2, no message on stderr).`;
    if (exitTwoIgnored.has(event)) result.error = reason;
    else result.blocking = reason;
    return result;
  }
  if (stdout.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(stdout);
    } catch (error) {
      result.error = `hook printed invalid JSON: ${(error as Error).message}`;
      return result;
    }
    const parsed = parseHookJson(json);
    if (parsed.ok) result.output = parsed.output;
    else result.error = parsed.message;
  } else if (stdout !== '' && run.exitCode === 0) {
    result.plainText = stdout;
  }
  if (run.exitCode !== 0) {
    const detail = stderr || `exit code ${run.exitCode ?? 'unknown'}`;
    result.error = result.error ? `${detail}; ${result.error}` : detail;
  }
  return result;
}

/**
 * A hook that gave no usable answer: a non-blocking error, and on PreToolUse the permission decision
 * it stands for (never an allow), with the reason the trace shows.
 */
export function unansweredHookResult(
  event: HookEvent,
  hook: string,
  message: string,
  onPreToolUse: { decision: 'ask' | 'deny'; reason: string },
): HookResult {
  if (event !== 'PreToolUse') return { hook, error: message };
  return {
    hook,
    error: message,
    output: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: onPreToolUse.decision,
        permissionDecisionReason: onPreToolUse.reason,
      },
    },
  };
}
