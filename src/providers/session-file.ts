import { readFile } from 'node:fs/promises';
import { EfferentError, type StopReason, type StreamEvent, type TokenUsage } from '../core/index.ts';

/**
 * A session file: JSON lines, one model turn per line, replayed with its timing.
 *
 * ```json
 * {"note":"reads two files","events":[{"wait":0,"type":"text_delta","text":"Reading.","streamMs":100},
 *   {"wait":20,"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.js"},"streamMs":80}],
 *  "stopReason":"tool_use","usage":{"inputTokens":900,"outputTokens":60}}
 * ```
 * `wait` is the pause (ms) before an event; `streamMs` spreads a text or a tool input over that many
 * ms in small chunks. Any stream event may appear; `message_start` and `message_end` are added when
 * missing. Blank lines and lines starting with `//` are skipped.
 */
export interface ScriptedTurn {
  events: ScriptedEvent[];
  stopReason?: StopReason;
  usage?: Partial<TokenUsage>;
  /** A line of narration for demos; never sent anywhere. */
  note?: string;
}

/** One scripted event: a stream event, or the `tool_use` shorthand (start, input deltas, end). */
export type ScriptedEvent = (
  | StreamEvent
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
) & { wait?: number; streamMs?: number };

const stopReasons = new Set([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'refusal',
  'error',
  'aborted',
]);
const eventTypes = new Set([
  'message_start',
  'text_delta',
  'thinking_delta',
  'tool_use_start',
  'tool_input_delta',
  'tool_use_end',
  'message_end',
  'error',
  'tool_use',
]);

function invalid(line: number, problem: string): EfferentError {
  return new EfferentError('session_invalid', `Session file line ${line}: ${problem}`);
}

/** Parses session-file text; throws `session_invalid` naming the line of the first problem. */
export function parseSessionFile(text: string): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('//')) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw invalid(index + 1, `not valid JSON (${error instanceof Error ? error.message : 'parse error'}).`);
    }
    if (typeof value !== 'object' || value === null || !Array.isArray((value as ScriptedTurn).events)) {
      throw invalid(index + 1, 'expected an object with an "events" array.');
    }
    const turn = value as ScriptedTurn;
    for (const event of turn.events) {
      if (typeof event !== 'object' || event === null || !eventTypes.has((event as { type: string }).type)) {
        throw invalid(index + 1, `unknown event ${JSON.stringify(event).slice(0, 80)}.`);
      }
    }
    if (turn.stopReason !== undefined && !stopReasons.has(turn.stopReason)) {
      throw invalid(index + 1, `unknown stopReason "${turn.stopReason}".`);
    }
    turns.push(turn);
  });
  return turns;
}

/** Reads and parses a session file. */
export async function loadSessionFile(path: string): Promise<ScriptedTurn[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EfferentError(
      'session_invalid',
      `Cannot read session file ${path}: ${(error as Error).message}`,
    );
  }
  return parseSessionFile(text);
}
