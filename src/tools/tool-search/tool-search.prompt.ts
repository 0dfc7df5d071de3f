/** What the model reads about ToolSearch. */
export const toolSearchPrompt = `Loads the full definitions of deferred tools so you can call them. Deferred tools are listed by name only (in a system reminder); calling one before it is loaded fails. Each match this tool returns is loaded and can be called right away.

Query forms:
- "select:Name1,Name2" loads exactly these tools (use it when you already know the names from the reminder).
- An exact tool name loads that tool.
- "mcp__server" lists the tools of one MCP server.
- Keywords ("create github issue", "delete file") rank tools by name, server, description and parameters; prefix a word with + to require it ("+slack send message").

max_results (default 5) caps how many tools are returned.`;
