import type { Writable } from 'node:stream';
import { type AgentDone, runAgent } from '../../agent/index.ts';
import { type Message, type ModelProvider, type ToolUseContext, userMessage } from '../../core/index.ts';
import type { Session } from '../../agent/index.ts';
import { addUsage, costOf } from '../../agent/index.ts';
import { emptyUsage } from '../../core/index.ts';
import { compactConversation } from './compact.ts';
import type { LineInput } from './line-input.ts';
import { builtInCommands, type CustomCommand, expandCommand } from './slash-commands.ts';
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
  /** `.efferent/commands/*.md` and `.claude/commands/*.md`. */
  customCommands?: readonly CustomCommand[];
  /** `/model provider:name`: builds the provider to switch to. */
  switchModel?: (spec: string) => Promise<ModelProvider>;
  /** Tokens the model can see; the conversation is compacted automatically past 80% of it. Default 200,000. */
  contextWindow?: number;
  /** The settings `statusLine`: its line, shown above each prompt. */
  statusLine?: () => Promise<string | undefined>;
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
  let provider = options.provider;
  let totals = emptyUsage();
  let totalCost: number | undefined;
  let contextTokens = 0;
  const contextWindow = options.contextWindow ?? 200_000;
  const compact = async (trigger: 'manual' | 'auto', focus?: string) => {
    running = new AbortController();
    try {
      output.write(
        style.dim(
          trigger === 'auto'
            ? 'The conversation nears the context window; compacting it…\n'
            : 'Compacting…\n',
        ),
      );
      const result = await compactConversation({
        provider,
        session,
        messages: history,
        systemPrompt: options.systemPrompt,
        trigger,
        signal: running.signal,
        ...(focus ? { focus } : {}),
      });
      totals = addUsage(totals, result.usage);
      if (result.summarised === 0) output.write('Nothing to compact yet.\n');
      else {
        history = result.messages;
        output.write(`Compacted ${result.summarised} earlier messages into a summary.\n`);
      }
    } catch (error) {
      output.write(style.red(`${(error as Error).message}\n`));
    } finally {
      running = undefined;
    }
  };
  /** Runs a slash command; returns the prompt to send for a custom command, 'exit', or undefined. */
  const command = async (line: string): Promise<string | undefined> => {
    const [name = '', ...rest] = line.slice(1).split(/\s+/);
    const args = rest.join(' ').trim();
    switch (name) {
      case 'exit':
      case 'quit':
        return 'exit';
      case 'help': {
        const custom = (options.customCommands ?? []).map(
          (each) => [`/${each.name}`, each.description] as const,
        );
        for (const [usage, what] of [...builtInCommands, ...custom])
          output.write(`  ${usage.padEnd(24)} ${what}\n`);
        return undefined;
      }
      case 'clear':
        history = [];
        contextTokens = 0;
        output.write('The conversation was cleared.\n');
        return undefined;
      case 'compact':
        await compact('manual', args || undefined);
        return undefined;
      case 'cost': {
        const cost =
          totalCost === undefined ? 'unknown (no price for this model)' : `$${totalCost.toFixed(4)}`;
        output.write(
          `Tokens: ${totals.inputTokens} in, ${totals.outputTokens} out, cache ${totals.cacheReadInputTokens} read / ${totals.cacheCreationInputTokens} written · cost ${cost}\n`,
        );
        return undefined;
      }
      case 'model':
        if (!args) output.write(`Model: ${provider.name}:${provider.model}\n`);
        else if (!options.switchModel) output.write('Switching models is not available here.\n');
        else {
          try {
            provider = await options.switchModel(args);
            output.write(`Model: ${provider.name}:${provider.model}\n`);
          } catch (error) {
            output.write(style.red(`${(error as Error).message}\n`));
          }
        }
        return undefined;
      case 'permissions': {
        const rules = session.settings.rules;
        output.write(`Mode: ${context.run.permissionMode}\n`);
        for (const behavior of ['deny', 'ask', 'allow'] as const) {
          output.write(`${behavior}:${rules[behavior].length === 0 ? ' (none)' : ''}\n`);
          for (const rule of rules[behavior])
            output.write(`  ${rule.text.padEnd(32)} ${style.dim(rule.origin)}\n`);
        }
        return undefined;
      }
      default: {
        const custom = options.customCommands?.find((each) => each.name === name);
        if (custom) return expandCommand(custom, args);
        output.write(`Unknown command /${name}; /help lists the commands.\n`);
        return undefined;
      }
    }
  };
  try {
    while (!exiting) {
      const status = await options.statusLine?.();
      if (status !== undefined) output.write(`\n${style.dim(status)}`);
      const line = await input.question(`\n${style.bold('>')} `, output);
      if (line === null) break;
      armed = false;
      let prompt = line.trim();
      if (!prompt) continue;
      if (prompt.startsWith('/')) {
        const outcome = await command(prompt);
        if (outcome === 'exit') break;
        if (outcome === undefined) continue;
        prompt = outcome;
      }
      if (contextTokens > contextWindow * 0.8) await compact('auto');
      running = new AbortController();
      renderer = createEventRenderer(output, { deferStarted: true });
      options.onMessage?.(userMessage(prompt));
      for await (const event of runAgent({
        provider,
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
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      })) {
        renderer(event);
        if (event.type === 'assistant_message' || event.type === 'tool_results')
          options.onMessage?.(event.message);
        if (event.type === 'assistant_message') {
          const usage = event.usage;
          contextTokens =
            usage.inputTokens +
            usage.cacheReadInputTokens +
            usage.cacheCreationInputTokens +
            usage.outputTokens;
        }
        if (event.type !== 'done') continue;
        history = event.messages;
        context = event.context;
        totals = addUsage(totals, event.usage);
        const cost = costOf(provider.model, event.usage);
        if (cost !== undefined) totalCost = (totalCost ?? 0) + cost;
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
