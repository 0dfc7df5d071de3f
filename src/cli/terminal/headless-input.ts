import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type ContentBlock, EfferentError } from '../../core/index.ts';

/** Reads all of stdin as the prompt (`echo hi | efferent run -p`); an empty input is a usage error. */
export async function readPromptFromStdin(input: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of input) parts.push(typeof part === 'string' ? Buffer.from(part) : (part as Buffer));
  const text = Buffer.concat(parts).toString('utf8').trim();
  if (text === '') {
    throw new EfferentError(
      'usage',
      'No prompt: give one after -p, or write it to stdin (echo "hi" | efferent run -p).',
    );
  }
  return text;
}

/** A content block in the Messages API's spelling, turned into efferent's; undefined when unsupported. */
function fromApiBlock(block: unknown): ContentBlock | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const value = block as {
    type?: unknown;
    text?: unknown;
    source?: { type?: unknown; media_type?: unknown; data?: unknown };
  };
  if (value.type === 'text' && typeof value.text === 'string') return { type: 'text', text: value.text };
  if (
    value.type === 'image' &&
    value.source?.type === 'base64' &&
    typeof value.source.media_type === 'string' &&
    typeof value.source.data === 'string'
  ) {
    return {
      type: 'image',
      source: { type: 'base64', mediaType: value.source.media_type as never, data: value.source.data },
    };
  }
  return undefined;
}

/**
 * User messages from stdin in Claude Code's stream-json input format, one JSON object a line:
 * `{"type":"user","message":{"role":"user","content":"…" | [blocks]}}`. A line that is not one is
 * reported on `errors` (saying what to send) and skipped.
 */
export async function* streamJsonInputs(
  input: Readable,
  errors: Writable,
): AsyncGenerator<string | ContentBlock[]> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const raw of lines) {
    number += 1;
    const line = raw.trim();
    if (line === '') continue;
    const problem = (what: string) =>
      errors.write(
        `efferent: stream-json input line ${number} ${what}; send {"type":"user","message":{"role":"user","content":"…"}}.\n`,
      );
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problem('is not JSON');
      continue;
    }
    const message = (value as { type?: unknown; message?: { role?: unknown; content?: unknown } }) ?? {};
    if (message.type !== 'user' || typeof message.message !== 'object' || message.message === null) {
      problem('is not a user message');
      continue;
    }
    const content = message.message.content;
    if (typeof content === 'string') {
      yield content;
      continue;
    }
    if (!Array.isArray(content)) {
      problem('has no content');
      continue;
    }
    const blocks = content.map(fromApiBlock);
    if (blocks.some((block) => block === undefined)) {
      problem('has a content block other than text or a base64 image');
      continue;
    }
    yield blocks as ContentBlock[];
  }
}
