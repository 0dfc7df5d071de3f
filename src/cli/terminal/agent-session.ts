import { homedir } from 'node:os';
import {
  type AnyTool,
  type AskUser,
  createToolUseContext,
  type PermissionMode,
  type RunToolUse,
  type ToolUseContext,
} from '../../core/index.ts';
import { createHookRunner, type HooksSettings } from '../../hooks/index.ts';
import {
  createPermissionResolver,
  type LoadedSettings,
  loadDefaultShellAnalyzer,
  loadSettings,
} from '../../permissions/index.ts';
import { createToolRunner } from '../../pipeline/index.ts';
import { assembleToolPool, getAllBaseTools } from '../../registry/index.ts';

/** Everything an agent run in the CLI needs besides the provider. */
export interface AgentSession {
  tools: AnyTool[];
  runTool: RunToolUse;
  context: ToolUseContext;
  settings: LoadedSettings;
}

/** How to set up a session. */
export interface AgentSessionOptions {
  cwd: string;
  model: string;
  permissionMode?: PermissionMode;
  /** The interactive prompt; absent in headless runs (asks are then refused with an explanation). */
  askUser?: AskUser;
  home?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Settings given on the command line (`--settings`). */
  settings?: string;
}

/** Merges each settings file's hooks into one configuration, highest precedence first. */
function mergeHooks(settings: LoadedSettings): HooksSettings {
  const merged: Record<string, unknown[]> = {};
  for (const layer of settings.hooks) {
    for (const [event, matchers] of Object.entries(layer.hooks)) {
      if (!Array.isArray(matchers)) continue;
      const list = merged[event] ?? [];
      list.push(...matchers);
      merged[event] = list;
    }
  }
  return merged as HooksSettings;
}

/**
 * Loads settings from the working directory (rules, mode, hooks, env), builds the tool pool, the
 * permission resolver and the 14-step pipeline, and a fresh context.
 */
export async function createAgentSession(options: AgentSessionOptions): Promise<AgentSession> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const settings = await loadSettings({
    cwd: options.cwd,
    home,
    trusted: true,
    cli: {
      ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
      ...(options.settings ? { settings: options.settings } : {}),
    },
  });
  const shell = await loadDefaultShellAnalyzer();
  const resolvePermission = createPermissionResolver({
    settings,
    home,
    ...(options.askUser ? { askUser: options.askUser } : {}),
    ...(shell ? { shell } : {}),
  });
  const allTools = getAllBaseTools();
  const tools = assembleToolPool({ builtIns: allTools });
  const hooks = createHookRunner({
    hooks: mergeHooks(settings),
    projectDir: settings.projectRoot,
    env,
    disabled: settings.disableAllHooks,
  });
  const runTool = createToolRunner({ tools, allTools, resolvePermission, hooks });
  const context = createToolUseContext({
    cwd: options.cwd,
    projectRoot: settings.projectRoot,
    tools,
    model: options.model,
    isNonInteractive: options.askUser === undefined,
    permissionMode: settings.defaultMode,
    additionalDirectories: settings.additionalDirectories,
    env: { ...env, ...settings.env },
  });
  return { tools, runTool, context, settings };
}
