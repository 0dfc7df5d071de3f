import type { Writable } from 'node:stream';
import type { AgentEvent } from '../../agent/index.ts';
import { toolResultText } from '../../core/index.ts';
import { style } from './style.ts';

/** How events are printed. */
export interface RenderOptions {
  /** Prefix tool lines with the time since the run started (the demo uses it). */
  timestamps?: boolean;
  /** Where time 0 is; default the first event. */
  startedAt?: number;
  /** A short detail for a result line, instead of its line count (the demo shows test tallies). */
  resultDetail?: (text: string, isError: boolean) => string | undefined;
}

function summary(input: Record<string, unknown>): string {
  const first = ['file_path', 'command', 'pattern', 'path', 'url']
    .map((key) => input[key])
    .find((value) => typeof value === 'string');
  const text = typeof first === 'string' ? first : JSON.stringify(input);
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/**
 * Prints agent events as they happen: streamed text inline, one line when a tool starts, one when its
 * result is back (in call order), and progress as it arrives.
 */
export function createEventRenderer(output: Writable, options: RenderOptions = {}) {
  let startedAt = options.startedAt;
  let inText = false;
  const names = new Map<string, string>();
  const inputs = new Map<string, Record<string, unknown>>();
  const stamp = (at: number) => {
    startedAt ??= at;
    return options.timestamps ? style.dim(`[${String(Math.round(at - startedAt)).padStart(5)} ms] `) : '';
  };
  const line = (text: string) => {
    if (inText) output.write('\n');
    inText = false;
    output.write(`${text}\n`);
  };
  return (event: AgentEvent): void => {
    switch (event.type) {
      case 'stream': {
        const inner = event.event;
        if (inner.type === 'text_delta') {
          if (!inText && options.timestamps) output.write(stamp(event.at));
          output.write(inner.text);
          inText = true;
        } else if (inner.type === 'tool_use_end') {
          names.set(inner.id, inner.name);
          inputs.set(inner.id, inner.input);
          if (options.timestamps)
            line(`${stamp(event.at)}${style.dim(`model: ${inner.name} call complete`)}`);
        } else if (inner.type === 'message_end' && options.timestamps) {
          line(`${stamp(event.at)}${style.dim(`model: message ended (${inner.stopReason})`)}`);
        } else if (inner.type === 'error') line(style.red(`Model error: ${inner.message}`));
        return;
      }
      case 'tool_started':
        line(
          `${stamp(event.at)}${style.cyan('▶')} ${event.name}(${summary(inputs.get(event.toolUseId) ?? {})}) started`,
        );
        return;
      case 'tool_progress':
        return;
      case 'tool_result': {
        const text = toolResultText(event.result).trim();
        const first = text.split('\n')[0] ?? '';
        const lines = text ? text.split('\n').length : 0;
        const mark = event.result.isError ? style.red('✗') : style.green('✓');
        const detail =
          options.resultDetail?.(text, event.result.isError === true) ??
          (event.result.isError ? first.slice(0, 160) : `${lines} line${lines === 1 ? '' : 's'}`);
        line(`${stamp(event.at)}${mark} ${event.name} result: ${detail}`);
        return;
      }
      case 'turn_start':
      case 'assistant_message':
      case 'tool_results':
        return;
      case 'done':
        if (inText) output.write('\n');
        inText = false;
        return;
    }
  };
}
