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
  Read: {
    accepted: [
      { file_path: '/repo/src/index.ts' },
      { file_path: '/repo/big.log', offset: 1000, limit: 200 },
      { file_path: '/repo/paper.pdf', pages: '1-5' },
    ],
    rejected: [
      {},
      { file_path: 1 },
      { file_path: '/a', offset: -1 },
      { file_path: '/a', limit: 0 },
      { file_path: '/a', extra: true },
    ],
    flags: {
      readOnly: true,
      concurrencySafe: true,
      deferred: false,
      maxResultSizeChars: Number.POSITIVE_INFINITY,
    },
  },
  Write: {
    accepted: [
      { file_path: '/repo/a.txt', content: '' },
      { file_path: '/repo/a.txt', content: 'hello\n' },
    ],
    rejected: [{}, { file_path: '/repo/a.txt' }, { content: 'x' }, { file_path: '/a', content: 1 }],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 100_000 },
  },
  Edit: {
    accepted: [
      { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' },
      { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b', replace_all: true },
    ],
    rejected: [
      {},
      { file_path: '/repo/a.ts', old_string: 'a' },
      { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b', replace_all: 'yes' },
      { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b', extra: 1 },
    ],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 100_000 },
  },
  MultiEdit: {
    accepted: [
      { file_path: '/repo/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] },
      {
        file_path: '/repo/a.ts',
        edits: [
          { old_string: 'a', new_string: 'b', replace_all: true },
          { old_string: 'c', new_string: 'd' },
        ],
      },
    ],
    rejected: [
      {},
      { file_path: '/repo/a.ts', edits: [] },
      { file_path: '/repo/a.ts', edits: [{ old_string: 'a' }] },
    ],
    flags: { readOnly: false, concurrencySafe: false, deferred: false, maxResultSizeChars: 100_000 },
  },
  Glob: {
    accepted: [{ pattern: '**/*.ts' }, { pattern: '*.md', path: '/repo/docs' }],
    rejected: [{}, { pattern: 1 }, { pattern: '*', path: 2 }, { pattern: '*', extra: true }],
    flags: { readOnly: true, concurrencySafe: true, deferred: false, maxResultSizeChars: 100_000 },
  },
  Grep: {
    accepted: [
      { pattern: 'TODO' },
      {
        pattern: 'fn\\s+\\w+',
        path: 'src',
        glob: '*.rs',
        type: 'rust',
        output_mode: 'content',
        '-i': true,
        '-o': false,
        '-n': true,
        '-B': 1,
        '-A': 2,
        '-C': 3,
        context: 3,
        head_limit: 0,
        offset: 10,
        multiline: true,
      },
    ],
    rejected: [
      {},
      { pattern: 'x', output_mode: 'lines' },
      { pattern: 'x', head_limit: -1 },
      { pattern: 'x', '-A': '2' },
    ],
    flags: { readOnly: true, concurrencySafe: true, deferred: false, maxResultSizeChars: 20_000 },
  },
  NotebookEdit: {
    accepted: [
      { notebook_path: '/repo/nb.ipynb', cell_id: 'abc', new_source: 'print(1)' },
      { notebook_path: '/repo/nb.ipynb', new_source: '# Title', cell_type: 'markdown', edit_mode: 'insert' },
    ],
    rejected: [
      {},
      { notebook_path: '/repo/nb.ipynb' },
      { notebook_path: '/a', new_source: '', edit_mode: 'append' },
      { notebook_path: '/a', new_source: '', cell_type: 'raw' },
    ],
    flags: { readOnly: false, concurrencySafe: false, deferred: true, maxResultSizeChars: 100_000 },
  },
};
