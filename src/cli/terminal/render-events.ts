import type { Writable } from 'node:stream';
import type { AgentEvent } from '../../agent/index.ts';
import { toolResultText } from '../../core/index.ts';
import { style } from './style.ts';
import { terminalText } from './terminal-text.ts';

/** How events are printed. */
export interface RenderOptions {
  /** Prefix tool lines with the time since the run started (the demo uses it). */
  timestamps?: boolean;
  /** Where time 0 is; default the first event. */
  startedAt?: number;
  /** A short detail for a result line, instead of its first lines (the demo shows test tallies). */
  resultDetail?: (text: string, isError: boolean) => string | undefined;
  /**
   * Print a call's "started" line only once it is known to run: at its first progress, or when
   * {@link EventRenderer.permissionGranted} says a person allowed it (interactive sessions).
   */
  deferStarted?: boolean;
  /** How many lines of a result to show; default 3. */
  resultLines?: number;
}

/** Prints events; `permissionGranted` tells it a prompt for a call was answered with an allow. */
export interface EventRenderer {
  (event: AgentEvent): void;
  permissionGranted(toolUseId: string): void;
}

/** The most telling input field of a call, shortened: a path, a command, a pattern or a URL. */
function summary(input: Record<string, unknown>): string {
  const first = ['file_path', 'command', 'pattern', 'path', 'url', 'notebook_path']
    .map((key) => input[key])
    .find((value) => typeof value === 'string');
  const text = terminalText((typeof first === 'string' ? first : JSON.stringify(input)).replace(/\s+/g, ' '));
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/** A call as the user sees it: `Write(/tmp/out.txt)`, `Bash(npm test)`. */
export function callLabel(name: string, input: Record<string, unknown>): string {
  return `${name}(${summary(input)})`;
}

/** Colours a unified diff: additions green, removals red, hunk headers cyan; other text unchanged. */
export function colourDiff(text: string): string[] {
  return text.split('\n').map((line) => {
    if (line.startsWith('+++') || line.startsWith('---')) return style.bold(line);
    if (line.startsWith('+')) return style.green(line);
    if (line.startsWith('-')) return style.red(line);
    if (line.startsWith('@@')) return style.cyan(line);
    return line;
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** An MCP server's progress in words: "2/5 (40%) indexing", or the bare count when no total is known. */
export function mcpProgressLine(data: { progress: number; total?: number; message?: string }): string {
  const count =
    typeof data.total === 'number' && data.total > 0
      ? `${data.progress}/${data.total} (${Math.round((data.progress / data.total) * 100)}%)`
      : `${data.progress}`;
  return data.message ? `${count} ${terminalText(data.message)}` : count;
}

/**
 * Prints agent events as they happen: streamed text inline, one line when a tool starts, progress
 * (elapsed time and the output tail of shell commands), and each result's first lines (in call order).
 */
export function createEventRenderer(output: Writable, options: RenderOptions = {}): EventRenderer {
  let startedAt = options.startedAt;
  let inText = false;
  const inputs = new Map<string, Record<string, unknown>>();
  const names = new Map<string, string>();
  const startedAtOf = new Map<string, number>();
  const shown = new Set<string>();
  const lastTail = new Map<string, string>();
  const stamp = (at: number) => {
    startedAt ??= at;
    return options.timestamps ? style.dim(`[${String(Math.round(at - startedAt)).padStart(5)} ms] `) : '';
  };
  const line = (text: string) => {
    if (inText) output.write('\n');
    inText = false;
    output.write(`${text}\n`);
  };
  const label = (id: string, name: string) => callLabel(name, inputs.get(id) ?? {});
  const showStarted = (id: string, at: number) => {
    if (shown.has(id)) return;
    shown.add(id);
    line(`${stamp(at)}${style.cyan('▶')} ${label(id, names.get(id) ?? 'tool')} started`);
  };
  const render = (event: AgentEvent): void => {
    switch (event.type) {
      case 'stream': {
        const inner = event.event;
        if (inner.type === 'text_delta') {
          if (!inText && options.timestamps) output.write(stamp(event.at));
          output.write(terminalText(inner.text));
          inText = true;
        } else if (inner.type === 'tool_use_end') {
          inputs.set(inner.id, inner.input);
          if (options.timestamps)
            line(`${stamp(event.at)}${style.dim(`model: ${inner.name} call complete`)}`);
        } else if (inner.type === 'message_end' && options.timestamps) {
          line(`${stamp(event.at)}${style.dim(`model: message ended (${inner.stopReason})`)}`);
        } else if (inner.type === 'error') line(style.red(`Model error: ${terminalText(inner.message)}`));
        return;
      }
      case 'tool_started':
        names.set(event.toolUseId, event.name);
        startedAtOf.set(event.toolUseId, event.at);
        if (!options.deferStarted) showStarted(event.toolUseId, event.at);
        return;
      case 'tool_progress': {
        showStarted(event.toolUseId, event.at);
        const data = event.data as { type?: string; output?: string; elapsedMs?: number } | undefined;
        if (data?.type === 'mcp_progress') {
          const progress = mcpProgressLine(
            event.data as { progress: number; total?: number; message?: string },
          );
          if (progress === lastTail.get(event.toolUseId)) return;
          lastTail.set(event.toolUseId, progress);
          line(style.dim(`  … ${progress}`));
          return;
        }
        if (data?.type !== 'shell_progress') return;
        const tail = terminalText((data.output ?? '').trimEnd())
          .split('\n')
          .slice(-3)
          .join('\n');
        if (tail === lastTail.get(event.toolUseId)) return;
        lastTail.set(event.toolUseId, tail);
        const elapsed = seconds(data.elapsedMs ?? event.at - (startedAtOf.get(event.toolUseId) ?? event.at));
        line(
          style.dim(
            `  … ${elapsed}${
              tail
                ? `\n${tail
                    .split('\n')
                    .map((text) => `  │ ${text}`)
                    .join('\n')}`
                : ''
            }`,
          ),
        );
        return;
      }
      case 'tool_result': {
        const text = terminalText(toolResultText(event.result).trim());
        const isError = event.result.isError === true;
        const mark = isError ? style.red('✗') : style.green('✓');
        const began = startedAtOf.get(event.toolUseId);
        const elapsed = began === undefined ? '' : style.dim(` (${seconds(event.at - began)})`);
        const custom = options.resultDetail?.(text, isError);
        if (custom !== undefined) {
          line(`${stamp(event.at)}${mark} ${event.name} result: ${custom}`);
          return;
        }
        const all = text ? text.split('\n') : [];
        const count = options.resultLines ?? 3;
        const first = all
          .slice(0, count)
          .map((each) => (each.length > 160 ? `${each.slice(0, 159)}…` : each));
        const more = all.length > count ? style.dim(`\n  … ${all.length - count} more lines`) : '';
        const target = summary(inputs.get(event.toolUseId) ?? {});
        const head = `${stamp(event.at)}${mark} ${event.name} result${target === '{}' ? '' : ` · ${target}`}${elapsed}:`;
        const body = first.map((each) => (isError ? style.red(`  ${each}`) : `  ${each}`));
        const diff = isError ? [] : diffLines(text);
        line([head, ...(diff.length > 0 ? diff : body)].join('\n') + (diff.length > 0 ? '' : more));
        return;
      }
      case 'retry':
        line(
          style.yellow(
            event.maxTokens !== undefined
              ? `${event.reason} Asking again with an output limit of ${event.maxTokens} tokens.`
              : `Retrying (${event.attempt}/${event.maxRetries}) in ${seconds(event.delayMs)}: ${terminalText(event.reason)}`,
          ),
        );
        return;
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
  return Object.assign(render, {
    permissionGranted(toolUseId: string) {
      showStarted(toolUseId, startedAtOf.get(toolUseId) ?? Date.now());
    },
  });
}

/** A diff inside a result (Edit, Write, MultiEdit report one), coloured, at most 20 lines. */
function diffLines(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((each) => each.startsWith('@@'));
  if (start < 0) return [];
  return colourDiff(lines.slice(start, start + 20).join('\n')).map((each) => `  ${each}`);
}
