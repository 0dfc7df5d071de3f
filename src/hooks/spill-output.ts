import { join } from 'node:path';
// Imported from its file, not core's index: the index is re-exported as efferent's public API.
import { writeContentAddressedFile } from '../core/content-addressed-file.ts';
import { errorMessage } from '../core/index.ts';
import { capHookText, hookOutputCharLimit } from './hook-output.ts';
import type { HookOutcome } from './types.ts';

/** The folder under a session directory where oversized hook output is kept. */
export const hookOutputFolder = 'hook-output';

/** How much of a spilled hook text stays inline. */
export const hookOutputPreviewChars = 2_000;

/** Where a session keeps oversized hook output: `<sessionDir>/hook-output`. */
export function hookOutputDir(sessionDir: string): string {
  return join(sessionDir, hookOutputFolder);
}

/** The first `limit` characters, cut back to the last line break when that keeps at least half. */
function preview(text: string, limit: number): string {
  let head = text.slice(0, limit);
  // Do not end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  const lastNewline = head.lastIndexOf('\n');
  return lastNewline >= limit / 2 ? head.slice(0, lastNewline) : head;
}

/**
 * Keeps one hook output string within the 10,000-character limit. A longer one is saved under
 * `outputDir` and replaced by a preview plus the file's path; without a folder (or when the write
 * fails) it is cut instead, saying how much was dropped.
 */
export async function limitHookText(text: string, outputDir: string | undefined): Promise<string> {
  if (text.length <= hookOutputCharLimit || outputDir === undefined) return capHookText(text);
  let path: string;
  try {
    path = await writeContentAddressedFile(outputDir, text);
  } catch (error) {
    return `${capHookText(text)}\n(The full hook output could not be saved: ${errorMessage(error)}.)`;
  }
  const shown = preview(text, hookOutputPreviewChars);
  return [
    shown,
    `… [hook output too long: ${text.length.toLocaleString('en-US')} characters; the first ${shown.length.toLocaleString('en-US')} are shown above. The full text is saved at ${path}; read that file if you need the rest.]`,
  ].join('\n');
}

function allShort(texts: readonly string[]): boolean {
  for (const text of texts) if (text.length > hookOutputCharLimit) return false;
  return true;
}

const short = (text: string | undefined) => text === undefined || text.length <= hookOutputCharLimit;
const hasShortMessage = (error: { message: string }) => short(error.message);

/** True when no text of the outcome is over the limit, so {@link limitOutcomeText} changes nothing. */
export function withinLimit(outcome: HookOutcome): boolean {
  return (
    allShort(outcome.additionalContext) &&
    allShort(outcome.systemMessages) &&
    allShort(outcome.blockReasons) &&
    outcome.errors.every(hasShortMessage) &&
    short(outcome.blocked?.reason) &&
    short(outcome.stop?.reason) &&
    short(outcome.permissionDecision?.reason) &&
    short(outcome.permissionRequestDecision?.message)
  );
}

/**
 * Applies {@link limitHookText} to every string of a merged outcome that reaches the model or the
 * user: block and stop reasons, permission reasons, context, system messages, feedback and errors.
 */
export async function limitOutcomeText(
  outcome: HookOutcome,
  outputDir: string | undefined,
): Promise<HookOutcome> {
  if (withinLimit(outcome)) return outcome;
  const limit = (text: string) => limitHookText(text, outputDir);
  const limitAll = (texts: readonly string[]) => Promise.all(texts.map(limit));
  const [additionalContext, systemMessages, blockReasons, errorTexts] = await Promise.all([
    limitAll(outcome.additionalContext),
    limitAll(outcome.systemMessages),
    limitAll(outcome.blockReasons),
    limitAll(outcome.errors.map((error) => error.message)),
  ]);
  const limited: HookOutcome = {
    ...outcome,
    additionalContext,
    systemMessages,
    blockReasons,
    errors: outcome.errors.map((error, index) => ({ ...error, message: errorTexts[index] ?? error.message })),
  };
  if (outcome.blocked) limited.blocked = { ...outcome.blocked, reason: await limit(outcome.blocked.reason) };
  if (outcome.stop) limited.stop = { ...outcome.stop, reason: await limit(outcome.stop.reason) };
  const decision = outcome.permissionDecision;
  if (decision?.reason !== undefined) {
    limited.permissionDecision = { ...decision, reason: await limit(decision.reason) };
  }
  const request = outcome.permissionRequestDecision;
  if (request?.message !== undefined) {
    limited.permissionRequestDecision = { ...request, message: await limit(request.message) };
  }
  return limited;
}
