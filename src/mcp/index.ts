/** MCP: efferent as a client of MCP servers (their tools in the pool) and as a server of its own tools. */
export * from './config.ts';
export * from './connection.ts';
export * from './manager.ts';
export * from './mcp-tool.ts';
export * from './names.ts';
export * from './oauth.ts';
export * from './policy.ts';
export * from './resource-tools.ts';
export * from './stdio-transport.ts';
export * from './attach.ts';
export * from './serve.ts';
export * from './serve-http.ts';
