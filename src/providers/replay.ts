import { setTimeout as delay } from 'node:timers/promises';
import {
  emptyUsage,
  type ModelProvider,
  type ModelRequest,
  type StopReason,
  type StreamEvent,
} from '../core/index.ts';
import type { ScriptedEvent, ScriptedTurn } from './session-file.ts';

/** How a scripted provider replays its turns. */
export interface ScriptedProviderOptions {
  /** Shown as the model name; default `replay`. */
  model?: string;
  /** Multiplies every wait (0 = as fast as possible); default 1. */
  timeScale?: number;
  /** Called with each request, so tests can check what the model would have been sent. */
  onRequest?: (request: ModelRequest) => void;
}

/** A scripted provider: plays turns in order, one per request, with the scripted timing. */
export interface ScriptedProvider extends ModelProvider {
  /** How many turns have been played. */
  readonly turnsPlayed: number;
}

const chunkCount = 6;

function chunks(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

/** Expands one scripted event into stream events, each with the pause before it. */
function expand(event: ScriptedEvent): Array<{ wait: number; event: StreamEvent }> {
  const { wait = 0, streamMs = 0, ...rest } = event;
  const body = rest as
    | StreamEvent
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
  if (body.type === 'tool_use') {
    const json = JSON.stringify(body.input);
    const parts = chunks(json, streamMs > 0 ? chunkCount : 1);
    const step = streamMs / Math.max(1, parts.length);
    return [
      { wait, event: { type: 'tool_use_start', id: body.id, name: body.name } },
      ...parts.map((partialJson) => ({
        wait: step,
        event: { type: 'tool_input_delta' as const, id: body.id, partialJson },
      })),
      { wait: 0, event: { type: 'tool_use_end', id: body.id, name: body.name, input: body.input } },
    ];
  }
  if (body.type === 'text_delta' && streamMs > 0) {
    const parts = chunks(body.text, chunkCount);
    const step = streamMs / parts.length;
    return parts.map((text, index) => ({
      wait: index === 0 ? wait : step,
      event: { type: 'text_delta', text },
    }));
  }
  return [{ wait, event: body }];
}

/** Replays scripted turns (from a session file or built in code) as a model provider. */
export function createScriptedProvider(
  turns: readonly ScriptedTurn[],
  options: ScriptedProviderOptions = {},
) {
  let played = 0;
  const scale = options.timeScale ?? 1;
  const provider: ScriptedProvider = {
    name: 'replay',
    model: options.model ?? 'replay',
    get turnsPlayed() {
      return played;
    },
    stream(request) {
      options.onRequest?.(request);
      const turn = turns[played];
      played += 1;
      return replayTurn(turn, played, scale, request.signal);
    },
  };
  return provider;
}

async function* replayTurn(
  turn: ScriptedTurn | undefined,
  number: number,
  scale: number,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent, void> {
  if (!turn) {
    yield { type: 'error', message: `replay: the session has no turn ${number}; the script ended.` };
    return;
  }
  const steps = turn.events.flatMap(expand);
  const hasTool = steps.some((step) => step.event.type === 'tool_use_end');
  if (steps[0]?.event.type !== 'message_start') yield { type: 'message_start', model: 'replay' };
  // Waits are kept on one schedule from the start, so timer rounding never accumulates.
  let deadline = performance.now();
  for (const step of steps) {
    deadline += step.wait * scale;
    const remaining = deadline - performance.now();
    if (remaining >= 1) {
      const completed = await delay(Math.round(remaining), true, { signal }).catch(() => false);
      if (!completed) {
        yield { type: 'message_end', stopReason: 'aborted', usage: emptyUsage() };
        return;
      }
    }
    yield step.event;
    if (step.event.type === 'message_end' || step.event.type === 'error') return;
  }
  const stopReason: StopReason = turn.stopReason ?? (hasTool ? 'tool_use' : 'end_turn');
  yield { type: 'message_end', stopReason, usage: { ...emptyUsage(), ...turn.usage } };
}
