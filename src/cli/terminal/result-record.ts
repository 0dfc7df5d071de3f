import type { AgentDone } from '../../agent/index.ts';

/** The final record of a headless run (`--output-format json`, last line of `stream-json`). */
export interface ResultRecord {
  type: 'result';
  subtype: 'success' | 'error_max_turns' | 'error_during_execution';
  is_error: boolean;
  result: string;
  stop_reason: AgentDone['reason'];
  num_turns: number;
  duration_ms: number;
  /** Absent for models without a known price. */
  total_cost_usd?: number;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  };
  session_id: string;
  error?: string;
}

/** Builds the result record, in the shape Claude Code's headless mode prints. */
export function resultRecord(done: AgentDone, sessionId: string): ResultRecord {
  const failed = done.reason === 'error' || done.reason === 'aborted' || done.reason === 'max_turns';
  const record: ResultRecord = {
    type: 'result',
    subtype: !failed ? 'success' : done.reason === 'max_turns' ? 'error_max_turns' : 'error_during_execution',
    is_error: failed,
    result: done.finalText,
    stop_reason: done.reason,
    num_turns: done.turns,
    duration_ms: done.durationMs,
    usage: {
      input_tokens: done.usage.inputTokens,
      output_tokens: done.usage.outputTokens,
      cache_read_input_tokens: done.usage.cacheReadInputTokens,
      cache_creation_input_tokens: done.usage.cacheCreationInputTokens,
    },
    session_id: sessionId,
  };
  if (done.usage.costUsd !== undefined) record.total_cost_usd = Math.round(done.usage.costUsd * 1e6) / 1e6;
  if (done.errorMessage !== undefined) record.error = done.errorMessage;
  return record;
}
