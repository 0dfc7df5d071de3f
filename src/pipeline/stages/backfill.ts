import type { AnyTool, ToolUseContext } from '../../core/index.ts';

/**
 * Step 6: a copy of the input with derived fields (absolute paths…) for hooks and permission checks.
 * The original stays byte-stable for the transcript and the prompt cache. A backfill that throws
 * leaves the copy as it was.
 */
export function backfillInput(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
): Record<string, unknown> {
  const copy = cloneInput(input);
  try {
    tool.backfillObservableInput(copy, context);
    return copy;
  } catch {
    return cloneInput(input);
  }
}

/**
 * A deep copy of a parsed input. Inputs are JSON-shaped (plain objects, arrays, primitives), which
 * are copied directly; anything else is left to structuredClone.
 */
export function cloneInput(input: Record<string, unknown>): Record<string, unknown> {
  return cloneValue(input) as Record<string, unknown>;
}

function cloneValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneValue);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) {
    const item = cloneValue((value as Record<string, unknown>)[key]);
    // An own "__proto__" key (JSON.parse makes them) stays a key; assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}
