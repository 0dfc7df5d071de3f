import { z } from 'zod';
import { type AnyTool, buildTool, EfferentError } from '../../core/index.ts';

/**
 * Tools another agent has and efferent does not ship (web fetch and search, subagents, skills, MCP
 * tools of servers the guard never starts), as stand-ins that carry the same permission target a real
 * one would. They are decided, never run: calling one is an error.
 */

const neverRun = async (): Promise<never> => {
  throw new EfferentError('usage', 'This tool stands in for another agent’s tool and only takes decisions.');
};

const openInput = z.record(z.string(), z.unknown());

/** `WebFetch(domain:…)` rules decide on the URL's host; without one, fetching asks. */
const webFetch = buildTool({
  name: 'WebFetch',
  inputSchema: z.object({ url: z.string() }).passthrough(),
  prompt: 'Fetches a URL (decided by the guard, run by the agent).',
  permissionTarget: (input) => ({ kind: 'url', url: input.url }),
  isReadOnly: () => true,
  call: neverRun,
});

/** Searching the web reaches outside systems: asks unless a `WebSearch` rule allows it. */
const webSearch = buildTool({
  name: 'WebSearch',
  inputSchema: openInput,
  prompt: 'Searches the web (decided by the guard, run by the agent).',
  call: neverRun,
});

/** A subagent does nothing itself (its own calls pass the guard one by one); `Agent(type)` rules apply. */
const agent = buildTool({
  name: 'Agent',
  aliases: ['Task'],
  inputSchema: z.object({ subagent_type: z.string() }).passthrough(),
  prompt: 'Starts a subagent (decided by the guard, run by the agent).',
  permissionTarget: (input) => ({ kind: 'agent', agentType: input.subagent_type }),
  isReadOnly: () => true,
  call: neverRun,
});

/** A skill loads instructions; `Skill(name)` rules apply. */
const skill = buildTool({
  name: 'Skill',
  inputSchema: z.object({ skill: z.string() }).passthrough(),
  prompt: 'Loads a skill (decided by the guard, run by the agent).',
  permissionTarget: (input) => ({ kind: 'skill', skill: input.skill }),
  isReadOnly: () => true,
  call: neverRun,
});

/** The stand-ins every guard session has. */
export const guardStandIns: readonly AnyTool[] = [webFetch, webSearch, agent, skill] as AnyTool[];

/**
 * An MCP tool named `mcp__SERVER__TOOL`, as efferent would list it: `mcp__…` rules apply, and without
 * one it asks. Its server's read-only hint is not known here, and would not stand in for a rule anyway.
 */
export function mcpStandIn(qualifiedName: string): AnyTool {
  const [, serverName = '', ...rest] = qualifiedName.split('__');
  return buildTool({
    name: qualifiedName,
    inputSchema: openInput,
    prompt: `Tool ${rest.join('__')} of MCP server ${serverName} (decided by the guard, run by the agent).`,
    mcpInfo: { serverName, toolName: rest.join('__') },
    call: neverRun,
  }) as AnyTool;
}
