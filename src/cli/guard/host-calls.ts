import { isAbsolute, resolve } from 'node:path';
import { type PermissionMode, permissionModes } from '../../core/index.ts';
import { containsPatch, patchTargets } from './apply-patch.ts';

/**
 * What another agent's pre-tool hook sends, turned into the calls efferent decides. Claude Code and
 * Codex send `PreToolUse` with Claude Code's tool names (Codex calls its shell `Bash` there too, and
 * adds `apply_patch`); Gemini CLI sends `BeforeTool` with its own names (`run_shell_command`,
 * `read_file`, `replace`…). Each host tool maps to the efferent tool whose permission means the same
 * thing; a tool that only touches the agent's own state has no opinion; anything else is asked about.
 */

/** The agents whose hooks the guard speaks. */
export const guardHosts = ['claude', 'codex', 'gemini'] as const;
export type GuardHost = (typeof guardHosts)[number];

/** One hook call, as the guard reads it. */
export interface HookPayload {
  host: GuardHost;
  cwd: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  /** The host's permission mode, when it sends one that efferent has too. */
  permissionMode?: PermissionMode;
  /** For an MCP tool, the server the host says serves it (Gemini CLI's `mcp_context.server_name`). */
  mcpServer?: string;
}

/** One call efferent decides: an efferent tool (or a stand-in of one) and its input. */
export interface GuardCall {
  tool: string;
  input: Record<string, unknown>;
  /** Where the call runs, when the host says it runs elsewhere than the session's folder. */
  cwd?: string;
  /**
   * Folders the host reads every file of. efferent's own Grep leaves out what the Read deny rules
   * cover; the host's search does not, so a denied file under one is a read of it.
   */
  walks?: string[];
  /** The search's own file filter (`glob`, `include`): only files it selects are read. */
  walkGlob?: string;
  /** Variables the host's shell call sets for the command (Codex's `local_shell` `env`), and the field. */
  env?: { field: string; assignments: Array<[string, string]> };
}

/** What the guard does with one host tool call. */
export type GuardPlan =
  | { kind: 'decide'; calls: GuardCall[] }
  /** The tool only touches the agent's own state (its to-do list, its plan): the host decides. */
  | { kind: 'no-opinion'; reason: string }
  /** efferent cannot tell what the call does: it is asked about. */
  | { kind: 'unknown'; reason: string };

/** Reads a hook's stdin text; throws a TypeError that says what is wrong. */
export function parseHookPayload(text: string, forced?: GuardHost, fallbackCwd = process.cwd()): HookPayload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`the hook input is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('the hook input must be a JSON object with tool_name and tool_input');
  const payload = value as Record<string, unknown>;
  const toolName = payload['tool_name'];
  if (typeof toolName !== 'string' || toolName === '')
    throw new TypeError('the hook input has no tool_name; install the guard as a pre-tool hook');
  const rawInput = payload['tool_input'];
  const toolInput =
    typeof rawInput === 'object' && rawInput !== null && !Array.isArray(rawInput)
      ? (rawInput as Record<string, unknown>)
      : typeof rawInput === 'string'
        ? { input: rawInput }
        : undefined;
  if (!toolInput) throw new TypeError('the hook input has no tool_input object');
  const cwd = typeof payload['cwd'] === 'string' && isAbsolute(payload['cwd']) ? payload['cwd'] : fallbackCwd;
  const host = forced ?? detectHost(payload, toolName);
  const mode = payload['permission_mode'];
  const result: HookPayload = { host, cwd, toolName, toolInput };
  if (typeof mode === 'string' && (permissionModes as readonly string[]).includes(mode))
    result.permissionMode = mode as PermissionMode;
  const server = (payload['mcp_context'] as { server_name?: unknown } | null | undefined)?.server_name;
  if (typeof server === 'string' && server !== '') result.mcpServer = server;
  return result;
}

const codexToolNames = new Set(['apply_patch', 'shell', 'local_shell', 'exec_command', 'shell_command']);

function detectHost(payload: Record<string, unknown>, toolName: string): GuardHost {
  if (payload['hook_event_name'] === 'BeforeTool') return 'gemini';
  if ('turn_id' in payload || codexToolNames.has(toolName)) return 'codex';
  return 'claude';
}

/** Claude Code tools (and Codex's, which uses the same names) that efferent has under the same name. */
const sameNamed = new Set(['Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep']);

/** Tools that act on the agent's own state only: its to-dos, plan, questions, background shells. */
const ownStateTools = new Set([
  'TodoWrite',
  'TodoRead',
  'ExitPlanMode',
  'EnterPlanMode',
  'AskUserQuestion',
  'BashOutput',
  'TaskOutput',
  'KillShell',
  'KillBash',
  'TaskStop',
  'ListMcpResourcesTool',
  // Gemini CLI
  'write_todos',
  'save_memory',
  'ask_user',
]);

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Every folder the fields name, relative to the hook's cwd. Hosts have renamed these fields between
 * versions (`directory` → `dir_path`), so which one a host reads is not the guard's to guess: each
 * value given is a folder the call may run in, and each is decided.
 */
function directoriesOf(payload: HookPayload, ...values: unknown[]): string[] {
  const folders = values
    .map(text)
    .filter((given): given is string => given !== undefined && given !== '')
    .map((given) => resolve(payload.cwd, given));
  return [...new Set(folders)];
}

/** Every distinct non-empty string among the fields, in order (see {@link directoriesOf}). */
function textsOf(...values: unknown[]): string[] {
  return [
    ...new Set(values.map(text).filter((given): given is string => given !== undefined && given !== '')),
  ];
}

/** A command written as argv (`["bash", "-lc", "…"]`) as the script bash runs. */
function commandText(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || command.some((word) => typeof word !== 'string')) return undefined;
  const argv = command as string[];
  const [program = '', flag, script] = argv;
  if (
    /^(?:\/(?:usr\/)?bin\/)?(?:ba|z|da)?sh$/.test(program) &&
    /^-l?c$/.test(flag ?? '') &&
    argv.length === 3
  )
    return script;
  return argv
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function mcpStandIn(name: string, input: Record<string, unknown>): GuardPlan {
  return { kind: 'decide', calls: [{ tool: name, input }] };
}

/** True when a rule can name the server exactly: `mcp__<server>` never holds another `__`. */
const nameableServer = (server: string): boolean => /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/.test(server);

/**
 * An MCP tool, under the server that serves it. `mcp__a__b__t` splits two ways (server `a`, tool
 * `b__t`; or server `a__b`, tool `t`), and rules name servers by the first: a server named `a__b`
 * (or `a__`) would get the rules of server `a`. With the host's word for the server
 * (`mcp_context`), a server a rule can name exactly decides by its rules and any other is unknown
 * (asked about); without it, a name that splits two ways is unknown, and any other is decided as it is.
 */
function mcpCall(payload: HookPayload): GuardPlan {
  const { toolName: name, toolInput: input, mcpServer } = payload;
  const ambiguous: GuardPlan = {
    kind: 'unknown',
    reason: `the MCP tool name ${name} may belong to more than one server, so no server's rules decide it`,
  };
  if (mcpServer !== undefined) {
    if (!nameableServer(mcpServer) || !name.startsWith(`mcp__${mcpServer}__`)) return ambiguous;
    return mcpStandIn(name, input);
  }
  if (name.slice('mcp__'.length).split('__').length > 2) return ambiguous;
  return mcpStandIn(name, input);
}

/** The calls efferent decides for one host tool call. */
export function planGuardCalls(payload: HookPayload): GuardPlan {
  const name = payload.toolName;
  if (name.startsWith('mcp__')) return mcpCall(payload);
  if (ownStateTools.has(name))
    return { kind: 'no-opinion', reason: `${name} only changes the agent's own state` };
  return payload.host === 'gemini' ? planGemini(payload) : planClaudeOrCodex(payload);
}

/** Fields of a shell call that set the command's variables (Codex's `local_shell` action has `env`). */
const environmentFields = ['env', 'environment', 'envs', 'env_vars'];

/** Fields of a shell call that choose the shell or the account it runs as. */
const shellFields = ['shell', 'user', 'run_as'];

/** The shells a host may be told to use that efferent's analysis speaks (by path or name). */
const knownShell = /^(?:\/(?:usr\/)?(?:local\/)?bin\/)?(?:ba|z|da)?sh$/;

/**
 * What a shell call's own fields do to the command's environment: the variables they set, or a
 * reason the call cannot be decided (an environment of another shape, a shell efferent does not
 * analyse, another account).
 */
function callEnvironment(payload: HookPayload): GuardCall['env'] | { unknown: string } | undefined {
  const input = payload.toolInput;
  for (const field of shellFields) {
    const value = input[field];
    if (value === undefined || value === null || value === '' || value === false) continue;
    if (field === 'shell' && typeof value === 'string' && knownShell.test(value)) continue;
    return { unknown: `${payload.toolName} asks for ${field} ${JSON.stringify(value).slice(0, 80)}` };
  }
  const assignments: Array<[string, string]> = [];
  let named: string | undefined;
  for (const field of environmentFields) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    named = named ?? field;
    if (Array.isArray(value)) {
      for (const entry of value) {
        const [name, ...rest] = typeof entry === 'string' ? entry.split('=') : [];
        if (!name || rest.length === 0)
          return { unknown: `${payload.toolName}'s ${field} field holds an entry that is not NAME=value` };
        assignments.push([name, rest.join('=')]);
      }
    } else if (typeof value === 'object') {
      for (const [name, entry] of Object.entries(value as Record<string, unknown>))
        assignments.push([name, typeof entry === 'string' ? entry : (JSON.stringify(entry) ?? '')]);
    } else return { unknown: `${payload.toolName}'s ${field} field is not a set of variables` };
  }
  return named === undefined || assignments.length === 0 ? undefined : { field: named, assignments };
}

/** A shell plan with the call's own environment on each shell call, or unknown when it cannot be read. */
function withEnvironment(payload: HookPayload, plan: GuardPlan): GuardPlan {
  if (plan.kind !== 'decide') return plan;
  const env = callEnvironment(payload);
  if (env === undefined) return plan;
  if ('unknown' in env) return { kind: 'unknown', reason: env.unknown };
  return {
    kind: 'decide',
    calls: plan.calls.map((call) => (call.tool === 'Bash' ? { ...call, env } : call)),
  };
}

function planClaudeOrCodex(payload: HookPayload): GuardPlan {
  const { toolName: name, toolInput: input } = payload;
  if (name === 'Bash')
    return withEnvironment(
      payload,
      withCarriedPatches(payload, { kind: 'decide', calls: [{ tool: name, input }] }, [input['command']], []),
    );
  if (name === 'Grep') {
    const glob = text(input['glob']);
    return {
      kind: 'decide',
      calls: [
        {
          tool: name,
          input,
          walks: [resolve(payload.cwd, text(input['path']) ?? '.')],
          ...(glob ? { walkGlob: glob } : {}),
        },
      ],
    };
  }
  if (sameNamed.has(name)) return { kind: 'decide', calls: [{ tool: name, input }] };
  switch (name) {
    case 'LS':
      return decideOne('Glob', { pattern: '*', path: text(input['path']) ?? payload.cwd });
    case 'NotebookRead':
      return decideOne('Read', { file_path: text(input['notebook_path']) ?? '' });
    case 'WebFetch':
      return decideOne('WebFetch', { url: text(input['url']) ?? '' });
    case 'WebSearch':
      return decideOne('WebSearch', { query: text(input['query']) ?? '' });
    case 'Task':
    case 'Agent':
      return decideOne('Task', { subagent_type: text(input['subagent_type']) ?? 'general-purpose' });
    case 'Skill':
      return decideOne('Skill', { skill: text(input['skill']) ?? text(input['command']) ?? '' });
    case 'SlashCommand': {
      // A custom command's text may run shell lines (`!` and its allowed-tools): not the agent's own
      // state. Decided as the skill of its name (`/deploy prod` → deploy), as Claude Code now does.
      const name = /^\/?([^\s/]\S*)/.exec(text(input['command']) ?? '')?.[1];
      if (!name) return { kind: 'unknown', reason: 'SlashCommand names no command' };
      return decideOne('Skill', { skill: name });
    }
    case 'ReadMcpResourceTool': {
      const server = text(input['server']);
      if (!server) return { kind: 'unknown', reason: 'ReadMcpResourceTool names no server' };
      if (!nameableServer(server))
        return { kind: 'unknown', reason: `no server's rules can name the MCP server ${server}` };
      return mcpStandIn(`mcp__${server}__ReadMcpResource`, input);
    }
    case 'shell':
    case 'local_shell':
    case 'shell_command':
    case 'exec_command':
      return withEnvironment(
        payload,
        shellCall(payload, [input['command'], input['cmd']], [input['workdir']]),
      );
    case 'apply_patch':
      return patchCalls(payload);
    default:
      return { kind: 'unknown', reason: `efferent does not know the tool ${name}` };
  }
}

function decideOne(tool: string, input: Record<string, unknown>, cwd?: string): GuardPlan {
  return { kind: 'decide', calls: [cwd ? { tool, input, cwd } : { tool, input }] };
}

/**
 * A shell call: each command field the host may run (`command`, `cmd`) in each folder it may run in.
 * A patch inside the command (`apply_patch <<'EOF'`, `["apply_patch", PATCH]`) is applied by the host
 * itself rather than by a shell, so its files are decided as writes too, from every folder the
 * command could start in (the host's and a leading `cd`).
 */
function shellCall(payload: HookPayload, commands: unknown[], workdirs: unknown[]): GuardPlan {
  const given = commands.filter((command) => command !== undefined);
  const scripts = given.map(commandText);
  if (scripts.length === 0 || scripts.some((script) => script === undefined))
    return { kind: 'unknown', reason: `${payload.toolName} sent no command text` };
  const folders = directoriesOf(payload, ...workdirs);
  const calls: GuardCall[] = [];
  // `["apply_patch", PATCH]` runs no shell: the host applies the patch itself, so only its writes
  // (added below) are decided. Read as a shell command, the envelope's `***` lines are patterns.
  const shellScripts = scripts.filter((_, index) => !hostAppliedPatch(given[index]));
  for (const script of new Set(shellScripts as string[])) {
    for (const cwd of folders.length > 0 ? folders : [undefined])
      calls.push(
        cwd
          ? { tool: 'Bash', input: { command: script }, cwd }
          : { tool: 'Bash', input: { command: script } },
      );
  }
  return withCarriedPatches(payload, { kind: 'decide', calls }, given, folders);
}

/** The argv a host applies as a patch itself, without a shell: exactly `[apply_patch, PATCH]`. */
function hostAppliedPatch(command: unknown): boolean {
  if (!Array.isArray(command) || command.length !== 2) return false;
  const [program, patch] = command as unknown[];
  return (
    (program === 'apply_patch' || program === 'applypatch') &&
    typeof patch === 'string' &&
    containsPatch(patch)
  );
}

/** A decided shell plan plus the writes of any patch its commands carry; an unreadable patch is unknown. */
function withCarriedPatches(
  payload: HookPayload,
  plan: Extract<GuardPlan, { kind: 'decide' }>,
  commands: unknown[],
  folders: string[],
): GuardPlan {
  const writes: GuardCall[] = [];
  for (const command of commands) {
    const carried = patchInCommand(payload, command, folders);
    if (carried === undefined)
      return {
        kind: 'unknown',
        reason: `${payload.toolName} carries a patch that names no file efferent can read`,
      };
    writes.push(...carried);
  }
  return { kind: 'decide', calls: [...plan.calls, ...writes] };
}

/**
 * The writes of a patch carried in a shell command: none when the command holds no patch, undefined
 * when it holds one whose files cannot be read.
 */
function patchInCommand(payload: HookPayload, command: unknown, folders: string[]): GuardCall[] | undefined {
  const words = Array.isArray(command) ? command : [command];
  const whole = words.filter((word) => typeof word === 'string').join('\n');
  if (!containsPatch(whole)) return [];
  const targets = patchTargets(whole);
  if (!targets) return undefined;
  const bases = new Set([payload.cwd, ...folders]);
  for (const folder of [...bases]) for (const moved of leadingCds(whole)) bases.add(resolve(folder, moved));
  return [...bases].flatMap((base) =>
    targets.map((target) => ({
      tool: 'Write',
      input: { file_path: resolve(base, target.path), content: target.content ?? '' },
    })),
  );
}

/** The folders `cd DIR &&` moves into anywhere in a script (quoted or not); over-reading adds writes. */
function leadingCds(script: string): string[] {
  const folders: string[] = [];
  for (const match of script.matchAll(/(?:^|[\s;&|(])cd\s+(?:'([^']*)'|"([^"]*)"|([^\s;&|)]+))/g)) {
    const folder = match[1] ?? match[2] ?? match[3];
    if (folder) folders.push(folder);
  }
  return folders;
}

function patchCalls(payload: HookPayload): GuardPlan {
  const { toolInput: input } = payload;
  // Each field that may carry the patch is decided (see {@link directoriesOf}).
  const patches = textsOf(input['command'], input['input'], input['patch']);
  const targets = patches.map(patchTargets);
  if (targets.length === 0 || targets.some((each) => each === undefined))
    return { kind: 'unknown', reason: 'the patch names no file efferent can read' };
  const bases = directoriesOf(payload, input['workdir']);
  return {
    kind: 'decide',
    calls: (bases.length > 0 ? bases : [payload.cwd]).flatMap((base) =>
      targets.flatMap((each) =>
        (each ?? []).map((target) => ({
          tool: 'Write',
          input: { file_path: resolve(base, target.path), content: target.content ?? '' },
        })),
      ),
    ),
  };
}

const hasGlob = (value: string) => /[*?[{]/.test(value);

function planGemini(payload: HookPayload): GuardPlan {
  const { toolName: name, toolInput: input, cwd } = payload;
  const filePaths = textsOf(input['file_path'], input['absolute_path'], input['path']);
  const named = directoriesOf(payload, input['dir_path'], input['directory'], input['path']);
  const directories = named.length > 0 ? named : [cwd];
  const inEach = (call: (path: string) => GuardCall): GuardPlan => ({
    kind: 'decide',
    calls: directories.map(call),
  });
  switch (name) {
    case 'run_shell_command':
      return withEnvironment(
        payload,
        shellCall(payload, [input['command']], [input['dir_path'], input['directory']]),
      );
    case 'read_file':
      return eachPath(filePaths, name, (path) => ({
        tool: 'Read',
        input: { file_path: resolve(cwd, path) },
      }));
    case 'write_file':
      return eachPath(filePaths, name, (path) => ({
        tool: 'Write',
        input: { file_path: resolve(cwd, path), content: text(input['content']) ?? '' },
      }));
    case 'replace':
      return eachPath(filePaths, name, (path) => ({
        tool: 'Edit',
        input: {
          file_path: resolve(cwd, path),
          old_string: text(input['old_string']) ?? '',
          new_string: text(input['new_string']) ?? '',
        },
      }));
    case 'glob':
      return inEach((path) => ({ tool: 'Glob', input: { pattern: text(input['pattern']) ?? '*', path } }));
    case 'search_file_content':
    case 'grep_search': {
      const include = text(input['include']);
      return inEach((path) => ({
        tool: 'Grep',
        input: { pattern: text(input['pattern']) ?? '', path, ...(include ? { glob: include } : {}) },
        walks: [path],
        ...(include ? { walkGlob: include } : {}),
      }));
    }
    case 'list_directory':
      return inEach((path) => ({ tool: 'Glob', input: { pattern: '*', path } }));
    case 'read_many_files':
      return readMany(payload);
    case 'web_fetch': {
      const urls = (text(input['prompt']) ?? text(input['url']) ?? '').match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
      if (urls.length === 0) return { kind: 'unknown', reason: 'web_fetch names no URL' };
      return { kind: 'decide', calls: urls.map((url) => ({ tool: 'WebFetch', input: { url } })) };
    }
    case 'google_web_search':
      return decideOne('WebSearch', { query: text(input['query']) ?? '' });
    case 'activate_skill':
      return decideOne('Skill', { skill: text(input['name']) ?? '' });
    default:
      return { kind: 'unknown', reason: `efferent does not know the tool ${name}` };
  }
}

/** One call per path a file tool's fields name (see {@link directoriesOf}): the host opens one of them. */
function eachPath(paths: string[], name: string, call: (path: string) => GuardCall): GuardPlan {
  return paths.length > 0 ? { kind: 'decide', calls: paths.map(call) } : missing(name, 'file_path');
}

function missing(name: string, field: string): GuardPlan {
  return { kind: 'unknown', reason: `${name} sent no ${field}` };
}

/** `read_many_files`: plain paths are reads; a pattern reads files efferent cannot list beforehand. */
function readMany(payload: HookPayload): GuardPlan {
  const { toolInput: input, cwd } = payload;
  const entries = [input['paths'], input['include']].flatMap((list) =>
    Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [],
  );
  if (entries.length === 0) return { kind: 'unknown', reason: 'read_many_files names no file' };
  const pattern = entries.find(hasGlob);
  if (pattern)
    return {
      kind: 'unknown',
      reason: `read_many_files reads the files matching ${pattern}, unknown beforehand`,
    };
  return {
    kind: 'decide',
    // A folder among them is read file by file, recursively.
    calls: entries.map((entry) => ({
      tool: 'Read',
      input: { file_path: resolve(cwd, entry) },
      walks: [resolve(cwd, entry)],
    })),
  };
}
