/** Per built-in tool: inputs the schema must accept and reject, and the flags the first accepted input gets. */
export interface ToolContractExamples {
  accepted: readonly unknown[];
  rejected: readonly unknown[];
  flags: { readOnly: boolean; concurrencySafe: boolean; deferred: boolean; maxResultSizeChars: number };
}

/** Keyed by tool name; every built-in tool needs an entry. */
export const toolContractExamples: Record<string, ToolContractExamples> = {
  Bash: {
    accepted: [
      { command: 'npm test' },
      { command: 'ls -la', timeout: 5000, description: 'List files', run_in_background: false },
      { command: 'curl example.com', dangerouslyDisableSandbox: true },
    ],
    rejected: [
      {},
      { command: '' },
      { command: 1 },
      { command: 'ls', timeout: '5' },
      { command: 'ls', extra: true },
    ],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 30_000 },
  },
  TaskOutput: {
    accepted: [{ task_id: 'b1234567' }, { task_id: 'b1234567', block: false, timeout: 600_000 }],
    rejected: [{}, { task_id: '' }, { task_id: 'b1', timeout: 600_001 }, { task_id: 'b1', block: 'yes' }],
    flags: { readOnly: true, concurrencySafe: true, deferred: true, maxResultSizeChars: 100_000 },
  },
  TaskStop: {
    accepted: [{ task_id: 'b1234567' }, { shell_id: 'b1234567' }],
    rejected: [{ task_id: '' }, { task_id: 1 }, { task_id: 'b1', extra: true }],
    flags: { readOnly: false, concurrencySafe: true, deferred: true, maxResultSizeChars: 100_000 },
  },
  REPL: {
    accepted: [{ code: '1 + 1' }, { code: 'await fetchData()', timeout: 1000 }],
    rejected: [{}, { code: '' }, { code: 'x', timeout: 0 }, { code: 'x', extra: true }],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 50_000 },
  },
  PowerShell: {
    accepted: [{ command: 'Get-ChildItem' }, { command: 'Get-Date', timeout: 1000, run_in_background: true }],
    rejected: [{}, { command: '' }, { command: 'ls', dangerouslyDisableSandbox: true }],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 30_000 },
  },
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
