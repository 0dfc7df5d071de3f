// The bubblewrap sandbox lives in its own layer (src/sandbox), shared with MCP servers and hooks.
export * from '../../../sandbox/sandbox.ts';
