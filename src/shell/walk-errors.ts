/** Thrown inside the walker to abandon analysis; caught at the entry point and turned into `too-complex`. */
export class TooComplexError extends Error {
  readonly nodeType: string | undefined;

  constructor(reason: string, nodeType?: string) {
    super(reason);
    this.name = 'TooComplexError';
    this.nodeType = nodeType;
  }
}

/**
 * Abandons analysis with a reason the model can act on. The error never leaves the analysis (the
 * entry points turn it into a result), so no stack trace is captured: that was a large part of the
 * cost of rejecting a command.
 */
export function tooComplex(reason: string, nodeType?: string): never {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    throw new TooComplexError(reason, nodeType);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
