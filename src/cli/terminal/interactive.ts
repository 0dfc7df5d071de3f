import type { Writable } from 'node:stream';
import { type AgentDone, runAgent } from '../../agent/index.ts';
import { type Message, type ModelProvider, type ToolUseContext, userMessage } from '../../core/index.ts';
import type { Session } from '../../agent/index.ts';
import type { LineInput } from './line-input.ts';
import type { TerminalPermissionPrompts } from './permission-prompt.ts';
import { createEventRenderer, type EventRenderer } from './render-events.ts';
import { style } from './style.ts';

/** An interactive terminal session. */
export interface InteractiveOptions {
  provider: ModelProvider;
  session: Session;
  systemPrompt: string;
  maxTurns: number;
  maxTokens?: number;
  maxRetries?: number;
  input: LineInput;
  output: Writable;
  /** The session's permission prompts: an interrupt denies every one shown or waiting. */
  prompts?: TerminalPermissionPrompts;
  /** Earlier conversation (`--continue`, `--resume`). */
  history?: readonly Message[];
  /** Told about every message as it happens (the session transcript). */
  onMessage?: (message: Message) => void;
}

/** The per-turn line: why the turn ended, turns, tokens (with cache reads and writes) and cost. */
export function turnSummary(done: AgentDone): string {
  const usage = done.usage;
  const cache =
    usage.cacheReadInputTokens || usage.cacheCreationInputTokens
      ? ` (cache ${usage.cacheReadInputTokens} read / ${usage.cacheCreationInputTokens} written)`
      : '';
  const cost = usage.costUsd === undefined ? '' : ` · $${usage.costUsd.toFixed(4)}`;
  const error = done.errorMessage ? ` · ${done.errorMessage}` : '';
  return `(${done.reason} · ${done.turns} turn${done.turns === 1 ? '' : 's'} · ${usage.inputTokens} in${cache} / ${usage.outputTokens} out tokens${cost}${error})`;
}

/**
 * The read-run loop: a prompt, the agent's streamed answer with tool lines, permission questions in
 * between. Ctrl+C or Esc during a turn interrupts it (every running tool stops, every permission
 * question is denied); at the prompt, Ctrl+C clears the line and a second Ctrl+C exits.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const { input, output, session, prompts } = options;
  let running: AbortController | undefined;
  let exiting = false;
  // Set by a Ctrl+C, cleared by the next line typed: a Ctrl+C at the prompt while set exits.
  let armed = false;
  let renderer: EventRenderer | undefined;
  const interruptTurn = (how: string) => {
    if (!running || running.signal.aborted) return false;
    running.abort();
    const denied = prompts?.denyAll() ?? 0;
    output.write(
      `\n${style.yellow(`Interrupted (${how}).`)}${denied > 0 ? ` Denied ${denied} pending permission question${denied === 1 ? '' : 's'}.` : ''} ${style.dim('(Ctrl+C at the prompt twice exits)')}\n`,
    );
    return true;
  };
  const onInterrupt = () => {
    if (interruptTurn('Ctrl+C')) {
      armed = true;
      return;
    }
    if (running) return; // already stopping
    if (armed) {
      exiting = true;
      input.close();
      return;
    }
    armed = true;
    input.flush();
    output.write(`\n${style.dim('Press Ctrl+C again to exit.')}\n${style.bold('>')} `);
  };
  input.readline.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  const stopKeys = input.onKey((key) => {
    if (key.name === 'escape') interruptTurn('Esc');
  });
  if (prompts) {
    prompts.onAnswer = (prompt, answer) => {
      if (answer.choice !== 'deny') renderer?.permissionGranted(prompt.toolUseId);
    };
  }

  output.write(
    `${style.bold('efferent')} · ${options.provider.name}:${options.provider.model} · ${session.context.run.cwd} · mode ${session.context.run.permissionMode}\n` +
      `${style.dim('Esc or Ctrl+C interrupts a turn; /exit or Ctrl+C twice at the prompt quits.')}\n`,
  );
  let history: Message[] = [...(options.history ?? [])];
  if (history.length > 0) output.write(style.dim(`Resumed a conversation of ${history.length} messages.\n`));
  let context: ToolUseContext = session.context;
  try {
    while (!exiting) {
      const line = await input.question(`\n${style.bold('>')} `, output);
      if (line === null) break;
      armed = false;
      const prompt = line.trim();
      if (!prompt) continue;
      if (prompt === '/exit' || prompt === '/quit') break;
      running = new AbortController();
      renderer = createEventRenderer(output, { deferStarted: true });
      options.onMessage?.(userMessage(prompt));
      for await (const event of runAgent({
        provider: options.provider,
        tools: session.tools,
        runTool: session.runTool,
        resultBudget: session.resultBudget,
        context,
        systemPrompt: options.systemPrompt,
        prompt,
        history,
        maxTurns: options.maxTurns,
        signal: running.signal,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      })) {
        renderer(event);
        if (event.type === 'assistant_message' || event.type === 'tool_results')
          options.onMessage?.(event.message);
        if (event.type !== 'done') continue;
        history = event.messages;
        context = event.context;
        output.write(style.dim(`${turnSummary(event)}\n`));
      }
      running = undefined;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    input.readline.off('SIGINT', onInterrupt);
    stopKeys();
    input.close();
  }
  return 0;
}
