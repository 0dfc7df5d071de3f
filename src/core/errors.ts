/**
 * One error base class for the whole runtime, with every code in one table.
 * Expected failures become tool results with these codes; exceptions are for bugs.
 */

/** Every error code efferent raises, with whether it is safe to show in telemetry (all are). */
export const ErrorCodes = {
  toolNotFound: 'tool_not_found',
  inputInvalid: 'input_invalid',
  validationFailed: 'validation_failed',
  permissionDenied: 'permission_denied',
  permissionNeeded: 'permission_needed',
  aborted: 'aborted',
  timeout: 'timeout',
  hookBlocked: 'hook_blocked',
  hookFailed: 'hook_failed',
  hookOutputInvalid: 'hook_output_invalid',
  toolFailed: 'tool_failed',
  fileNotFound: 'file_not_found',
  fileStale: 'file_stale',
  fileNotRead: 'file_not_read',
  fileTooLarge: 'file_too_large',
  pathOutsideWorkspace: 'path_outside_workspace',
  pathBlocked: 'path_blocked',
  settingsInvalid: 'settings_invalid',
  ruleInvalid: 'rule_invalid',
  shellParseFailed: 'shell_parse_failed',
  providerError: 'provider_error',
  providerConfig: 'provider_config',
  sessionInvalid: 'session_invalid',
  usage: 'usage',
  budgetPersistFailed: 'budget_persist_failed',
  sandboxUnavailable: 'sandbox_unavailable',
  internal: 'internal',
  toolDeferred: 'tool_deferred',
} as const;

/** A code from {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const marker = Symbol.for('efferent.error');

/** The base class of every error efferent throws on purpose. */
export class EfferentError extends Error {
  readonly code: ErrorCode;
  readonly [marker] = true;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EfferentError';
    this.code = code;
  }

  /** True for efferent errors, even when they come from another copy of the package. */
  static isInstance(value: unknown): value is EfferentError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** An error whose message explains the problem; used where `EfferentError` would need a code anyway. */
export function efferentError(code: ErrorCode, message: string, cause?: unknown): EfferentError {
  return cause === undefined ? new EfferentError(code, message) : new EfferentError(code, message, { cause });
}

const knownErrorNames = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'AbortError',
  'TimeoutError',
  'ZodError',
  'EfferentError',
]);

/**
 * A short, telemetry-safe label for an error: never its message, never a path.
 * Efferent errors give their code; Node system errors their errno code; anything else its class name
 * when it is a well-known class, otherwise "Error".
 */
export function classifyToolError(error: unknown): string {
  if (EfferentError.isInstance(error)) return `efferent:${error.code}`;
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z0-9_]{1,30}$/.test(code)) return `system:${code}`;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && knownErrorNames.has(name)) return name;
    return 'Error';
  }
  return typeof error === 'string' ? 'string' : 'unknown';
}

/** The message of any thrown value, for places that show it to the model or the user. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
