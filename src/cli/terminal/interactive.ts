import type { Writable } from 'node:stream';
import { runAgent } from '../../agent/index.ts';
import type { Message, ModelProvider, ToolUseContext } from '../../core/index.ts';
import type { Session } from '../../agent/index.ts';
import type { LineInput } from './line-input.ts';
import { createEventRenderer } from './render-events.ts';
import { style } from './style.ts';

/** An interactive terminal session. */
export interface InteractiveOptions {
  provider: ModelProvider;
  session: Session;
  systemPrompt: string;
  maxTurns: number;
  input: LineInput;
  output: Writable;
}

/**
 * The read-run loop: a prompt, the agent's streamed answer with tool lines, permission questions in
 * between. The first Ctrl+C interrupts the running turn; Ctrl+C at the prompt (or end of input) exits.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const { input, output, session } = options;
  let running: AbortController | undefined;
  let exiting = false;
  const onInterrupt = () => {
    if (running && !running.signal.aborted) {
      running.abort();
      output.write(`\n${style.yellow('Interrupted.')} (Ctrl+C again at the prompt exits)\n`);
      return;
    }
    exiting = true;
    input.close();
  };
  input.readline.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);

  output.write(
    `${style.bold('efferent')} · ${options.provider.name}:${options.provider.model} · ${session.context.run.cwd} · mode ${session.context.run.permissionMode}\n` +
      `${style.dim('Ctrl+C interrupts a turn; /exit or Ctrl+C at the prompt quits.')}\n`,
  );
  let history: Message[] = [];
  let context: ToolUseContext = session.context;
  try {
    while (!exiting) {
      const line = await input.question(`\n${style.bold('>')} `, output);
      if (line === null) break;
      const prompt = line.trim();
      if (!prompt) continue;
      if (prompt === '/exit' || prompt === '/quit') break;
      running = new AbortController();
      const render = createEventRenderer(output);
      for await (const event of runAgent({
        provider: options.provider,
        tools: session.tools,
        runTool: session.runTool,
        resultBudget: session.resultBudget,
        hooks: session.hooks,
        context,
        systemPrompt: options.systemPrompt,
        prompt,
        history,
        maxTurns: options.maxTurns,
        signal: running.signal,
      })) {
        render(event);
        if (event.type !== 'done') continue;
        history = event.messages;
        context = event.context;
        const cost = event.usage.costUsd === undefined ? '' : ` · $${event.usage.costUsd.toFixed(4)}`;
        const error = event.errorMessage ? ` · ${event.errorMessage}` : '';
        output.write(
          style.dim(
            `(${event.reason} · ${event.turns} turn${event.turns === 1 ? '' : 's'} · ${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens${cost}${error})\n`,
          ),
        );
      }
      running = undefined;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    input.close();
  }
  return 0;
}
