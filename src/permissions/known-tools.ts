import type { PermissionTarget } from '../core/index.ts';

/**
 * Permission declarations for tools `efferent check` may be asked about when the tool pool lacks
 * them (tools efferent does not ship, such as WebFetch, or tools not registered in this build).
 * The pool's own tool always takes precedence; this table is only a stand-in with the same shape
 * as a tool's `permissionTarget` and `isReadOnly`.
 */
export interface KnownToolDeclaration {
  /** What rules match the call against. */
  target(input: Record<string, unknown>, cwd: string): PermissionTarget;
  /** `isReadOnly(input)`; null when the table cannot say (commands: the shell analyser decides). */
  readOnly(input: Record<string, unknown>): boolean | null;
  aliases?: readonly string[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const readPath = (field: string): KnownToolDeclaration => ({
  target: (input, cwd) => ({ kind: 'path', path: text(input[field]) || cwd, access: 'read' }),
  readOnly: () => true,
});

const writePath = (field: string): KnownToolDeclaration => ({
  target: (input) => ({ kind: 'path', path: text(input[field]), access: 'write' }),
  readOnly: () => false,
});

const noTarget = (readOnly: boolean | null): KnownToolDeclaration => ({
  target: () => ({ kind: 'none' }),
  readOnly: () => readOnly,
});

/** The stand-in declarations, by tool name. */
export const knownToolDeclarations: Readonly<Record<string, KnownToolDeclaration>> = {
  Bash: {
    target: (input) => ({ kind: 'command', command: text(input.command), shell: 'bash' }),
    readOnly: () => null,
  },
  PowerShell: {
    target: (input) => ({ kind: 'command', command: text(input.command), shell: 'powershell' }),
    readOnly: () => null,
  },
  Read: readPath('file_path'),
  Glob: readPath('path'),
  Grep: readPath('path'),
  LSP: readPath('file_path'),
  Edit: writePath('file_path'),
  MultiEdit: writePath('file_path'),
  Write: writePath('file_path'),
  NotebookEdit: writePath('notebook_path'),
  WebFetch: { target: (input) => ({ kind: 'url', url: text(input.url) }), readOnly: () => true },
  WebSearch: noTarget(true),
  Agent: {
    target: (input) => ({ kind: 'agent', agentType: text(input.subagent_type) || 'general-purpose' }),
    readOnly: () => null,
    aliases: ['Task'],
  },
  Skill: {
    target: (input) => ({ kind: 'skill', skill: text(input.skill) || text(input.command) }),
    readOnly: () => null,
  },
  TodoWrite: noTarget(false),
  ToolSearch: noTarget(true),
  ListMcpResources: noTarget(true),
  ReadMcpResource: noTarget(true),
  TaskOutput: noTarget(true),
  TaskStop: noTarget(false),
};
