/**
 * Tool names as rules see them: legacy aliases, tool-name globs and MCP server prefixes.
 */

/** Former tool names that rules may still use, mapped to today's names. */
export const legacyToolAliases: Readonly<Record<string, string>> = {
  Task: 'Agent',
  KillShell: 'TaskStop',
  AgentOutputTool: 'TaskOutput',
  BashOutputTool: 'TaskOutput',
};

/** The canonical name for a tool name written in a rule. */
export function canonicalToolName(name: string): string {
  return Object.hasOwn(legacyToolAliases, name) ? (legacyToolAliases[name] ?? name) : name;
}

/** True when a rule's tool name contains a glob star. */
export function isToolNameGlob(name: string): boolean {
  return name.includes('*');
}

const mcpServerPrefix = /^mcp__[^_*]+(?:_[^_*]+)*__/;

/**
 * Whether a tool-name glob may appear in an allow rule: only after a literal `mcp__<server>__`
 * prefix, so an allow can never reach past one server by accident.
 */
export function isAnchoredAllowGlob(name: string): boolean {
  const match = mcpServerPrefix.exec(name);
  return match !== null && !match[0].includes('*');
}

/**
 * Whether a rule's tool name covers a tool. `mcp__server` covers every tool of that server; `*`
 * in a name matches any run of characters.
 */
export function toolNameMatches(
  ruleToolName: string,
  toolName: string,
  aliases: readonly string[] = [],
): boolean {
  const names = [toolName, ...aliases];
  if (isToolNameGlob(ruleToolName)) {
    const source = ruleToolName
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    const pattern = new RegExp(`^${source}$`, 's');
    return names.some((name) => pattern.test(name));
  }
  if (names.includes(ruleToolName)) return true;
  // A bare server rule (`mcp__github`) covers every tool of that server.
  if (/^mcp__[^_]+(?:_[^_]+)*$/.test(ruleToolName) && !ruleToolName.slice(5).includes('__')) {
    return names.some((name) => name.startsWith(`${ruleToolName}__`));
  }
  return false;
}
