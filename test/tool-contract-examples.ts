/** Per built-in tool: inputs the schema must accept and reject, and the flags the first accepted input gets. */
export interface ToolContractExamples {
  accepted: readonly unknown[];
  rejected: readonly unknown[];
  flags: { readOnly: boolean; concurrencySafe: boolean; deferred: boolean; maxResultSizeChars: number };
}

/** Keyed by tool name; every built-in tool needs an entry. */
export const toolContractExamples: Record<string, ToolContractExamples> = {
  Think: {
    accepted: [{ thought: 'Check the failing test first.' }],
    rejected: [{}, { thought: '' }, { thought: 1 }, { thought: 'x', extra: true }],
    flags: { readOnly: true, concurrencySafe: true, deferred: false, maxResultSizeChars: 100_000 },
  },
  Sleep: {
    accepted: [{ duration_ms: 1000 }, { duration_ms: 600_000, reason: 'server start' }],
    rejected: [{}, { duration_ms: 0 }, { duration_ms: 600_001 }, { duration_ms: '5' }],
    flags: { readOnly: true, concurrencySafe: true, deferred: false, maxResultSizeChars: 100_000 },
  },
  TodoWrite: {
    accepted: [
      { todos: [] },
      { todos: [{ content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' }] },
    ],
    rejected: [
      {},
      { todos: [{ content: 'x', status: 'doing', activeForm: 'x' }] },
      { todos: [{ content: 'x', status: 'pending' }] },
      { todos: 'x' },
    ],
    flags: { readOnly: false, concurrencySafe: false, deferred: true, maxResultSizeChars: 100_000 },
  },
};
