/** Thrown inside the walker to abandon analysis; caught at the entry point and turned into `too-complex`. */
export class TooComplexError extends Error {
  readonly nodeType: string | undefined;

  constructor(reason: string, nodeType?: string) {
    super(reason);
    this.name = 'TooComplexError';
    this.nodeType = nodeType;
  }
}

/** Abandons analysis with a reason the model can act on. */
export function tooComplex(reason: string, nodeType?: string): never {
  throw new TooComplexError(reason, nodeType);
}
