/**
 * The one tool lookup, used everywhere a call names a tool: the current name first, then a former
 * name (alias), each in list order. A tool whose alias equals another tool's name never shadows it.
 */
export function findToolByName<Tool extends { readonly name: string; readonly aliases: readonly string[] }>(
  tools: readonly Tool[],
  name: string,
): Tool | undefined {
  for (const tool of tools) if (tool.name === name) return tool;
  for (const tool of tools) if (tool.aliases.includes(name)) return tool;
  return undefined;
}
