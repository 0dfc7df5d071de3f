import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  buildTool,
  createToolUseContext,
  EfferentError,
  ErrorCodes,
  type RunToolUse,
  type ToolRunEvent,
  type ToolUseBlock,
  type ToolUseContext,
} from '../../src/core/index.ts';

/** A temp dir that the caller removes with `cleanup()`. */
export function tempDir(prefix = 'efferent-pipeline-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A context rooted at `dir`, with its session folder inside it. */
export function contextIn(
  dir: string,
  overrides: Partial<Parameters<typeof createToolUseContext>[0]> = {},
): ToolUseContext {
  return createToolUseContext({
    cwd: dir,
    sessionDir: join(dir, 'session'),
    sessionId: 'session-1',
    ...overrides,
  });
}

const echoSchema = z.object({
  text: z.string(),
  times: z.number().int().positive().optional(),
  _secret: z.string().optional(),
});

/** Echo: returns its text, optionally repeated; records the inputs it was called with. */
export function echoTool(calls: Array<Record<string, unknown>> = []) {
  return buildTool<z.infer<typeof echoSchema>, string, { step: string }>({
    name: 'Echo',
    aliases: ['Say'],
    inputSchema: echoSchema,
    prompt: 'Echoes its input.',
    maxResultSizeChars: 1_000,
    validateInput: async (input) =>
      input.text === 'forbidden'
        ? { ok: false, message: 'The text "forbidden" is not allowed; pick other text.', code: 1 }
        : { ok: true },
    backfillObservableInput: (input) => {
      input['backfilled'] = true;
    },
    toAutoClassifierInput: (input) => input.text,
    call: async (input, _context, _canUseTool, onProgress, toolUseId) => {
      calls.push({ ...input });
      onProgress({ toolUseId, data: { step: 'echoing' } });
      return { data: input.text.repeat(input.times ?? 1) };
    },
  });
}

/** Fails with an efferent error or a plain error. */
export function failingTool(kind: 'efferent' | 'plain' = 'plain') {
  return buildTool({
    name: 'Fail',
    inputSchema: z.object({}),
    prompt: 'Always fails.',
    call: async () => {
      if (kind === 'efferent')
        throw new EfferentError(ErrorCodes.fileNotFound, 'File /x does not exist; check the path.');
      throw new Error('disk on fire');
    },
  });
}

/** Waits for the signal, emitting progress first; the proper abort-aware tool. */
export function waitingTool(started?: () => void) {
  return buildTool<{ ms: number }, string, string>({
    name: 'Wait',
    inputSchema: z.object({ ms: z.number() }),
    prompt: 'Waits.',
    call: async (input, context, _canUseTool, onProgress, toolUseId) => {
      onProgress({ toolUseId, data: 'waiting' });
      started?.();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, input.ms);
        context.run.abortController.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new Error('aborted'));
        });
      });
      return { data: 'waited' };
    },
  });
}

/** A tool_use block. */
export function toolUse(name: string, input: Record<string, unknown>, id = 'toolu_1'): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Drains a run into an array of events. */
export async function collect(
  run: RunToolUse,
  block: ToolUseBlock,
  context: ToolUseContext,
): Promise<ToolRunEvent[]> {
  const events: ToolRunEvent[] = [];
  for await (const event of run(block, context)) events.push(event);
  return events;
}

/** The single result event of a run; fails the test if there is not exactly one. */
export function onlyResult(events: readonly ToolRunEvent[]): Extract<ToolRunEvent, { type: 'result' }> {
  const results = events.filter(
    (event): event is Extract<ToolRunEvent, { type: 'result' }> => event.type === 'result',
  );
  if (results.length !== 1) throw new Error(`expected exactly one result event, got ${results.length}`);
  const [result] = results;
  if (!result || events.at(-1) !== result) throw new Error('the result event must come last');
  return result;
}

/** The text of a result's content. */
export function resultText(event: Extract<ToolRunEvent, { type: 'result' }>): string {
  const content = event.result.content;
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : `[image]`)).join('\n');
}
