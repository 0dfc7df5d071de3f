import type { Writable } from 'node:stream';
import { type AgentDone, runAgent } from '../../agent/index.ts';
import {
  type ContentBlock,
  type Message,
  type ModelProvider,
  type RunToolUse,
  type ToolUseContext,
  userMessage,
} from '../../core/index.ts';
import type { Session } from '../../agent/index.ts';
import { type PermissionDenial, resultLine, StreamJsonWriter } from './stream-json.ts';

/** How `efferent run -p` prints. */
export type OutputFormat = 'text' | 'json' | 'stream-json';

/** One headless run. */
export interface HeadlessOptions {
  provider: ModelProvider;
  session: Session;
  systemPrompt: string;
  /** The prompt; or `inputs`, user messages read one after another (`--input-format stream-json`). */
  prompt?: string | ContentBlock[];
  inputs?: AsyncIterable<string | ContentBlock[]>;
  format: OutputFormat;
  maxTurns: number;
  maxTokens?: number;
  maxRetries?: number;
  output: Writable;
  errors: Writable;
  signal: AbortSignal;
  /** stream-json: also write the raw API stream events (`--include-partial-messages`). */
  includePartialMessages?: boolean;
  /** For the init line. */
  mcpServers?: ReadonlyArray<{ name: string; status: string }>;
  apiKeySource?: string;
  version?: string;
  /** Told about every message as it happens: the prompt, the model's, the tool results (the transcript). */
  onMessage?: (message: Message) => void;
  /** Earlier conversation (`--continue`, `--resume`). */
  history?: readonly Message[];
}

/** Records the calls the permission engine refused, for `permission_denials`. */
function recordingDenials(runTool: RunToolUse, denials: PermissionDenial[]): RunToolUse {
  return async function* (block, context) {
    for await (const event of runTool(block, context)) {
      if (event.type === 'result' && event.errorClass?.startsWith('efferent:permission_')) {
        denials.push({ tool_name: block.name, tool_use_id: block.id, tool_input: block.input });
      }
      yield event;
    }
  };
}

/**
 * Runs prompts without a person: text prints the final answer; json one result object; stream-json
 * Claude Code's line protocol (init, assistant and user envelopes, optional raw stream events, and a
 * result line per prompt). Returns the exit code.
 */
export async function runHeadless(options: HeadlessOptions): Promise<number> {
  const { session, output } = options;
  const sessionId = session.context.run.sessionId;
  const write = (line: Record<string, unknown>) => {
    if (!output.writableEnded && !output.destroyed) output.write(`${JSON.stringify(line)}\n`);
  };
  const writer = new StreamJsonWriter({
    write,
    sessionId,
    model: options.provider.model,
    partial: options.includePartialMessages === true,
  });
  if (options.format === 'stream-json') {
    writer.init({
      sessionId,
      cwd: session.context.run.cwd,
      tools: session.tools.map((tool) => tool.name),
      mcpServers: options.mcpServers ?? [],
      model: options.provider.model,
      permissionMode: session.context.run.permissionMode,
      apiKeySource: options.apiKeySource ?? 'none',
      version: options.version ?? '',
    });
  }
  const inputs: AsyncIterable<string | ContentBlock[]> =
    options.inputs ??
    (async function* () {
      if (options.prompt !== undefined) yield options.prompt;
    })();
  let history: Message[] = [...(options.history ?? [])];
  let context: ToolUseContext = session.context;
  let exitCode = 0;
  let ran = false;
  for await (const prompt of inputs) {
    if (options.signal.aborted) break;
    ran = true;
    if (options.inputs && options.format === 'stream-json') writer.user(prompt);
    options.onMessage?.(userMessage(prompt));
    const denials: PermissionDenial[] = [];
    let done: AgentDone | undefined;
    let apiMs = 0;
    let turnStarted = 0;
    for await (const event of runAgent({
      provider: options.provider,
      tools: session.tools,
      runTool: recordingDenials(session.runTool, denials),
      resultBudget: session.resultBudget,
      hooks: session.hooks,
      context,
      systemPrompt: options.systemPrompt,
      prompt,
      history,
      maxTurns: options.maxTurns,
      signal: options.signal,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    })) {
      if (event.type === 'done') {
        done = event;
        break;
      }
      if (event.type === 'turn_start') turnStarted = event.at;
      else if (event.type === 'assistant_message') {
        apiMs += Math.max(0, event.at - turnStarted);
        options.onMessage?.(event.message);
      } else if (event.type === 'tool_results') options.onMessage?.(event.message);
      if (options.format === 'stream-json') writer.event(event);
    }
    if (!done) return 1;
    history = done.messages;
    context = done.context;
    const record = resultLine(done, {
      sessionId,
      model: options.provider.model,
      durationApiMs: Math.round(apiMs),
      permissionDenials: denials,
    });
    if (options.format === 'text') {
      if (done.finalText && !output.destroyed)
        output.write(done.finalText.endsWith('\n') ? done.finalText : `${done.finalText}\n`);
      if (record['is_error']) {
        options.errors.write(
          `efferent: the run stopped (${done.reason})${done.errorMessage ? `: ${done.errorMessage}` : ''}\n`,
        );
      }
    } else write(record);
    if (record['is_error']) exitCode = 1;
  }
  if (!ran) {
    options.errors.write('efferent: no prompt was given: pass -p PROMPT, or write the prompt to stdin.\n');
    return 1;
  }
  return exitCode;
}
