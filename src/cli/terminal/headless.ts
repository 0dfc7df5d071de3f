import type { Writable } from 'node:stream';
import { type AgentDone, runAgent } from '../../agent/index.ts';
import type { ModelProvider } from '../../core/index.ts';
import type { Session } from '../../agent/index.ts';
import { resultRecord } from './result-record.ts';

/** How `efferent run -p` prints. */
export type OutputFormat = 'text' | 'json' | 'stream-json';

/** One headless run. */
export interface HeadlessOptions {
  provider: ModelProvider;
  session: Session;
  systemPrompt: string;
  prompt: string;
  format: OutputFormat;
  maxTurns: number;
  output: Writable;
  errors: Writable;
  signal: AbortSignal;
}

/** Runs one prompt without a person: text prints the final answer; json one result object; stream-json every event as a JSON line. Returns the exit code. */
export async function runHeadless(options: HeadlessOptions): Promise<number> {
  const { session, output } = options;
  let done: AgentDone | undefined;
  for await (const event of runAgent({
    provider: options.provider,
    tools: session.tools,
    runTool: session.runTool,
    resultBudget: session.resultBudget,
    hooks: session.hooks,
    context: session.context,
    systemPrompt: options.systemPrompt,
    prompt: options.prompt,
    maxTurns: options.maxTurns,
    signal: options.signal,
  })) {
    if (event.type === 'done') {
      done = event;
      break;
    }
    if (options.format === 'stream-json') output.write(`${JSON.stringify(event)}\n`);
  }
  if (!done) return 1;
  const record = resultRecord(done, session.context.run.sessionId);
  if (options.format === 'text') {
    if (done.finalText) output.write(done.finalText.endsWith('\n') ? done.finalText : `${done.finalText}\n`);
    if (record.is_error) {
      options.errors.write(
        `efferent: the run stopped (${done.reason})${done.errorMessage ? `: ${done.errorMessage}` : ''}\n`,
      );
    }
  } else output.write(`${JSON.stringify(record)}\n`);
  return record.is_error ? 1 : 0;
}
