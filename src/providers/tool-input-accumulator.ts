/**
 * Collects a tool call's streamed JSON fragments and parses them once the block is complete. A cut-off
 * or malformed input is reported, never guessed at: a half-received call must not run.
 */
export class ToolInputAccumulator {
  #text = '';

  /** Adds one fragment. */
  append(fragment: string): void {
    this.#text += fragment;
  }

  /** True when the fragments so far are one complete JSON object (more text could only break it). */
  isComplete(): boolean {
    const text = this.#text.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) return false;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  }

  /** The parsed input, or an error describing why it could not be parsed. */
  finish(): { input: Record<string, unknown>; inputError?: string } {
    const text = this.#text.trim();
    if (text === '') return { input: {} };
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return { input: value as Record<string, unknown> };
      }
      return { input: {}, inputError: 'the input is not a JSON object' };
    } catch (error) {
      return { input: {}, inputError: error instanceof Error ? error.message : 'unparseable JSON' };
    }
  }
}
