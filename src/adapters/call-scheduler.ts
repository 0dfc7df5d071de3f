import {
  type AnyTool,
  type ImageBlock,
  type PermissionPromptAnswer,
  type TextBlock,
  type ToolResultBlock,
  toolResultText,
} from '../core/index.ts';
import type { AdapterSession } from './adapter-session.ts';

/** One call's outcome as an adapter hands it to its framework. */
export interface AdaptedResult {
  /** The text the model reads (efferent's model-facing message when `isError`). */
  text: string;
  isError: boolean;
  /**
   * Everything the result holds, in order: its text parts and its images (Read of a picture, a PDF
   * page, a notebook's figures). A result that is only text has one text part.
   */
  content: Array<TextBlock | ImageBlock>;
}

interface Waiter {
  exclusive: boolean;
  start: () => void;
}

interface TurnBatch {
  running: number;
  finished: Array<{
    result: ToolResultBlock;
    tool: AnyTool | undefined;
    deliver: (block: ToolResultBlock) => void;
  }>;
}

/**
 * Runs framework tool calls the way efferent's executor does: calls that are concurrency-safe for
 * their input run in parallel, every other call runs alone, in the order the calls arrived. Calls
 * that overlap in time form one turn, whose results go through the session's per-turn budget
 * together before any of them is handed back.
 */
export class CallScheduler {
  readonly #session: AdapterSession;
  readonly #queue: Waiter[] = [];
  #running = 0;
  #exclusive = false;
  #batch: TurnBatch | undefined;

  constructor(session: AdapterSession) {
    this.#session = session;
  }

  /** Runs one call through the session's pipeline and resolves with its budgeted result. */
  async run(
    tool: AnyTool,
    input: Record<string, unknown>,
    call: { id: string; signal?: AbortSignal; answer?: PermissionPromptAnswer },
  ): Promise<AdaptedResult> {
    const batch = this.#batch ?? { running: 0, finished: [] };
    this.#batch = batch;
    batch.running += 1;
    let result: ToolResultBlock;
    const release = await this.#acquire(!isConcurrencySafe(tool, input));
    try {
      result = await this.#session.callTool(tool.name, input, {
        id: call.id,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.answer ? { answer: call.answer } : {}),
      });
    } finally {
      release();
    }
    const delivered = new Promise<ToolResultBlock>((deliver) => {
      batch.finished.push({ result, tool, deliver });
    });
    batch.running -= 1;
    if (batch.running === 0) {
      if (this.#batch === batch) this.#batch = undefined;
      const tools = new Map(batch.finished.map((entry) => [entry.result.toolUseId, entry.tool]));
      const budgeted = await this.#session.resultBudget
        .applyToTurn(
          batch.finished.map((entry) => entry.result),
          { toolFor: (toolUseId) => tools.get(toolUseId) },
        )
        .catch(() => batch.finished.map((entry) => entry.result));
      batch.finished.forEach((entry, index) => {
        entry.deliver(budgeted[index] ?? entry.result);
      });
    }
    const block = await delivered;
    const content =
      typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : block.content;
    return { text: toolResultText(block), isError: block.isError === true, content };
  }

  #acquire(exclusive: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({
        exclusive,
        start: () => {
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.#running -= 1;
            if (exclusive) this.#exclusive = false;
            this.#pump();
          });
        },
      });
      this.#pump();
    });
  }

  /** Starts waiters in arrival order: safe ones together, an unsafe one only when nothing runs. */
  #pump(): void {
    for (;;) {
      const head = this.#queue[0];
      if (!head || this.#exclusive) return;
      if (head.exclusive && this.#running > 0) return;
      if (!head.exclusive && this.#running >= this.#session.context.options.maxConcurrency) return;
      this.#queue.shift();
      this.#running += 1;
      if (head.exclusive) this.#exclusive = true;
      head.start();
    }
  }
}

/** Whether a call may run next to others; anything that cannot be decided runs alone. */
function isConcurrencySafe(tool: AnyTool, input: Record<string, unknown>): boolean {
  try {
    const parsed = tool.inputSchema.safeParse(input);
    return parsed.success && tool.isConcurrencySafe(parsed.data);
  } catch {
    return false;
  }
}
