import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type AnyTool,
  type AskUser,
  type PermissionPrompt,
  type PermissionPromptAnswer,
  type PermissionSuggestion,
  type ToolResultBlock,
  type ToolUseContext,
  toolInputJsonSchema,
  type RunToolUse,
} from '../core/index.ts';

/** The parts of an efferent session `mcp serve` uses (structural: this layer does not import the agent). */
export interface ServableSession {
  tools: readonly AnyTool[];
  runTool: RunToolUse;
  context: ToolUseContext;
  dispose(): Promise<void>;
}

/** Opens the efferent session behind one MCP session; `askUser` turns asks into elicitations. */
export type ServeSessionFactory = (askUser: AskUser) => Promise<ServableSession>;

/** What {@link createEfferentMcpServer} serves. */
export interface ServeOptions {
  createSession: ServeSessionFactory;
  /** Serve only these tools (names as the model sees them). */
  tools?: readonly string[];
  /** The version efferent reports. */
  version?: string;
}

/** A rule as a user writes it: `Bash(npm test)`, `mcp__github`. */
export function formatRule(suggestion: PermissionSuggestion): string {
  return suggestion.ruleContent === undefined
    ? suggestion.toolName
    : `${suggestion.toolName}(${suggestion.ruleContent})`;
}

/** The refusal an MCP client gets when a call would ask and the client cannot be asked. */
export function cannotAskMessage(prompt: PermissionPrompt): string {
  const rules = prompt.suggestions.filter((s) => s.behavior === 'allow').map(formatRule);
  const rule = rules[0] ?? prompt.toolName;
  return `efferent needs approval for ${prompt.toolName} (${prompt.message.replace(/\.$/, '')}), and this MCP client cannot be asked (it does not support elicitation). To allow it, add "${rule}" to permissions.allow in .efferent/settings.json, or start the server with --allowedTools "${rule}".`;
}

/** MCP annotations from the tool contract (judged on an empty input: the tool's general nature). */
function annotationsOf(tool: AnyTool): McpToolDefinition['annotations'] {
  const probe = (fn: () => boolean): boolean => {
    try {
      return fn();
    } catch {
      return false;
    }
  };
  const readOnly = probe(() => tool.isReadOnly({}));
  return {
    title: tool.userFacingName(),
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && probe(() => tool.isDestructive({})),
    openWorldHint: tool.mcpInfo !== undefined,
  };
}

function toCallToolResult(block: ToolResultBlock): CallToolResult {
  const content: CallToolResult['content'] =
    typeof block.content === 'string'
      ? [{ type: 'text', text: block.content }]
      : block.content.map((part) =>
          part.type === 'text'
            ? { type: 'text' as const, text: part.text }
            : { type: 'image' as const, data: part.source.data, mimeType: part.source.mediaType },
        );
  return block.isError ? { content, isError: true } : { content };
}

/** The most of a call's input an approval question shows; past it the question says how much is hidden. */
const maxShownInput = 2_000;

/**
 * Characters that act on a display instead of printing: C0 controls but newline and tab, DEL, C1
 * controls, and the direction controls that reorder what is shown (U+061C, U+200E/F, U+202A–E,
 * U+2066–9).
 */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text from the call shown as it is: every acting character as a visible escape (`\u202e`). */
function visibleText(text: string): string {
  return text.replace(acting, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The call's input as the question shows it: escaped, runs of blanks counted (padding must not push
 * the end of a command out of sight), and anything past {@link maxShownInput} announced, never cut
 * silently.
 */
function shownInput(input: Record<string, unknown>): string {
  const text = visibleText(JSON.stringify(input)).replace(/ {4,}/g, (run) => ` ⟨${run.length} spaces⟩ `);
  return text.length > maxShownInput
    ? `${text.slice(0, maxShownInput)}… (${text.length - maxShownInput} more characters not shown; deny if unsure)`
    : text;
}

/** What the MCP client's user is asked: the call, why efferent asks, the preview, and the input. */
function approvalQuestion(prompt: PermissionPrompt): string {
  const preview = prompt.preview ? `\n\n${visibleText(prompt.preview)}` : '';
  return `Allow ${prompt.toolName}? ${visibleText(prompt.message)}${preview}\nInput: ${shownInput(prompt.input)}`;
}

const decisionSchema = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Decision',
      enum: ['allow', 'deny'],
      enumNames: ['Allow once', 'Deny'],
      description: 'Allow this one call, or deny it.',
    },
  },
  required: ['decision'],
};

/**
 * An MCP server (official SDK, low-level `Server`) that serves an efferent session's tool pool.
 * Every call runs through the session's full pipeline and permission engine; when the engine would
 * ask, the client is asked by elicitation if it supports it, and otherwise the call is denied with
 * the rule to add. One efferent session per MCP server instance, opened at `initialize` and disposed
 * when the MCP session closes.
 */
export function createEfferentMcpServer(options: ServeOptions): {
  server: Server;
  /** The session, once the client initialised. */
  session: () => Promise<ServableSession>;
  close: () => Promise<void>;
} {
  const server = new Server(
    { name: 'efferent', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: {}, logging: {} },
      instructions:
        "efferent's tools (Bash, Read, Edit, Grep, …), each call checked by efferent's permission engine.",
    },
  );
  const askUser: AskUser = async (prompt, signal): Promise<PermissionPromptAnswer> => {
    if (!server.getClientCapabilities()?.elicitation) {
      return { choice: 'deny', feedback: cannotAskMessage(prompt) };
    }
    try {
      const answer = await server.elicitInput(
        {
          mode: 'form',
          message: approvalQuestion(prompt),
          requestedSchema: decisionSchema,
        },
        { signal },
      );
      if (answer.action === 'accept' && answer.content?.['decision'] === 'allow')
        return { choice: 'allow-once' };
      return {
        choice: 'deny',
        feedback: `the MCP client's user answered ${answer.action === 'accept' ? 'deny' : answer.action}.`,
      };
    } catch (error) {
      return {
        choice: 'deny',
        feedback: `asking the MCP client failed (${error instanceof Error ? error.message : String(error)}).`,
      };
    }
  };
  let opened: Promise<ServableSession> | undefined;
  const session = () => {
    opened ??= options.createSession(askUser);
    return opened;
  };
  const served = async (): Promise<AnyTool[]> => {
    const pool = (await session()).tools;
    if (!options.tools) return [...pool];
    const wanted = new Set(options.tools);
    return pool.filter((tool) => wanted.has(tool.name));
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await served();
    const isNonInteractive = true;
    return {
      tools: await Promise.all(
        tools.map(async (tool) => ({
          name: tool.name,
          description: await tool.prompt({ tools, isNonInteractive }),
          inputSchema: toolInputJsonSchema(tool) as McpToolDefinition['inputSchema'],
          annotations: annotationsOf(tool),
        })),
      ),
    };
  });

  let calls = 0;
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const current = await session();
    const tool = (await served()).find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      return {
        content: [
          {
            type: 'text',
            text: `efferent does not serve a tool named "${request.params.name}" here. Call tools/list for the tools it serves.`,
          },
        ],
        isError: true,
      };
    }
    calls += 1;
    // Each call gets its own abort controller: a cancelled call ends (and kills its process group)
    // without ending the session.
    const controller = new AbortController();
    const onAbort = () => controller.abort(extra.signal.reason);
    if (extra.signal.aborted) controller.abort();
    else extra.signal.addEventListener('abort', onAbort, { once: true });
    const context: ToolUseContext = {
      ...current.context,
      run: { ...current.context.run, abortController: controller },
    };
    const progressToken = request.params._meta?.progressToken;
    let step = 0;
    try {
      const block = {
        type: 'tool_use' as const,
        id: `toolu_mcp_${calls}`,
        name: tool.name,
        input: request.params.arguments ?? {},
      };
      for await (const event of current.runTool(block, context)) {
        if (event.type === 'progress') {
          if (progressToken !== undefined) {
            step += 1;
            const message = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: step, message: message.slice(0, 500) },
            });
          }
          continue;
        }
        if (event.contextModifier) {
          // A call that changes what later calls see (cd, mode) changes this MCP session's context.
          const next = event.contextModifier(current.context);
          current.context.run = { ...next.run, abortController: current.context.run.abortController };
        }
        return toCallToolResult(event.result);
      }
      return { content: [{ type: 'text', text: 'The call ended without a result.' }], isError: true };
    } finally {
      extra.signal.removeEventListener('abort', onAbort);
    }
  });

  const close = async () => {
    const current = opened;
    opened = undefined;
    await server.close().catch(() => {});
    if (current) await (await current.catch(() => undefined))?.dispose();
  };
  server.onclose = () => {
    void close();
  };
  return { server, session, close };
}
