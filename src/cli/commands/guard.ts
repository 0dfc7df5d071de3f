import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { type CallDecision, createSession, decideCall, type Session } from '../../agent/index.ts';
import { type AnyTool, errorMessage, isInsideDirectory, type PermissionMode } from '../../core/index.ts';
import { findTool } from '../../registry/index.ts';
import { loadShellParser } from '../../shell/index.ts';
import {
  type GuardVerdict,
  hostHookConfig,
  hostVerdict,
  type OnAllow,
  type OnAsk,
  renderGuardOutput,
} from '../guard/guard-output.ts';
import {
  type GuardCall,
  type GuardHost,
  guardHosts,
  type HookPayload,
  parseHookPayload,
  planGuardCalls,
} from '../guard/host-calls.ts';
import { deniedUnder } from '../guard/denied-under.ts';
import {
  guardLocations,
  type HostAssignment,
  projectHostAssignments,
  shellCodeAssignment,
} from '../guard/host-environment.ts';
import { isProgramCodeAssignment, programAssignment } from '../guard/program-variables.ts';
import { guardStandIns, mcpStandIn } from '../guard/stand-in-tools.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import {
  addSessionFlags,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';

export interface GuardFlags extends SessionFlags {
  agent?: GuardHost;
  mode?: PermissionMode;
  home?: string;
  onAsk?: OnAsk;
  onAllow?: OnAllow;
  printConfig?: boolean;
}

/** The decision for a host call, and the sentence that explains it. */
export interface GuardDecision {
  verdict: GuardVerdict;
  reason: string;
  /** An ask raised by a safety check, the analysis, the workspace or an ask rule, not merely "no rule allows it". */
  flagged?: boolean;
}

const strength: Record<GuardVerdict, number> = { 'no-opinion': 0, allow: 1, ask: 2, deny: 3 };

/**
 * The most a hook input may hold. Hosts send a tool call (a Write's content included) in far less;
 * an input without bound could exhaust memory, and a guard killed for it exits with a status every
 * host reads as "run the tool".
 */
export const maxHookInputBytes = 64 * 1024 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > maxHookInputBytes)
      throw new TypeError(`the hook input is larger than ${maxHookInputBytes / 1024 / 1024} MB`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A Bash call the host runs in another folder is decided as `cd FOLDER && COMMAND`: the analysis follows the `cd`. */
function inFolder(call: GuardCall, sessionCwd: string): GuardCall {
  if (!call.cwd || call.cwd === sessionCwd || call.tool !== 'Bash') return call;
  const command = String(call.input['command'] ?? '');
  const folder = `'${call.cwd.replace(/'/g, `'\\''`)}'`;
  return { tool: call.tool, input: { ...call.input, command: `cd ${folder} && ${command}` } };
}

/** The host's input without the fields efferent's tool does not have (hosts add their own, e.g. `description`). */
function knownFields(session: Session, call: GuardCall): Record<string, unknown> {
  const tool = findTool(session.tools, call.tool, session.allTools);
  if (!tool) return call.input;
  const parsed = tool.inputSchema.safeParse(call.input);
  if (parsed.success) return call.input;
  const unknown = new Set(
    parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' && issue.path.length === 0 ? issue.keys : [],
    ),
  );
  if (unknown.size === 0) return call.input;
  return Object.fromEntries(Object.entries(call.input).filter(([key]) => !unknown.has(key)));
}

/**
 * A safety ask when the host reads every file of a folder (its search, `read_many_files` of a
 * folder) and the folder holds a file the Read deny rules cover, or is too large to check: the
 * host's search does not leave such files out as efferent's Grep does.
 */
function searchedDenial(session: Session, call: GuardCall): CallDecision | undefined {
  const isReadDenied = session.context.run.isReadDenied;
  if (!isReadDenied || !call.walks) return undefined;
  for (const root of call.walks) {
    const found = deniedUnder(root, isReadDenied, session.context.run.cwd, undefined, call.walkGlob);
    if (found.kind === 'none') continue;
    const what =
      found.kind === 'found'
        ? `${root} holds ${found.path}, which a Read deny rule covers`
        : `${root} holds too many files to check against the Read deny rules`;
    const detail = `Safety check: ${call.tool} reads every file under ${root}, and ${what}; the agent's own search does not leave denied files out.`;
    return {
      tool: call.tool,
      behavior: 'ask',
      askKind: 'safety',
      readOnly: true,
      trace: [{ stage: 'safety', outcome: 'ask', detail }],
      message: `${detail} Search a narrower folder, or ask the user.`,
    };
  }
  return undefined;
}

function explain(decision: CallDecision): string {
  const decisive = [...decision.trace].reverse().find((step) => step.outcome === decision.behavior);
  // An ask's reason is shown to the person, who needs why, not the model's instructions in `message`.
  // It quotes the call, and the host prints it: characters that act on a terminal (ESC, direction
  // controls) are shown as escapes, so the reason cannot redraw or reorder what is approved.
  if (decision.behavior === 'ask' && decisive) return terminalText(decisive.detail);
  return terminalText(decision.message ?? decisive?.detail ?? `${decision.tool}: ${decision.behavior}`);
}

/**
 * The project the call belongs to. The agent may have moved into a folder of it (`cd src`), and the
 * hook's cwd follows, but the project's settings (its deny rules) and trust are those of its root:
 * the root the agent names (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`) when it holds the cwd, else
 * the nearest folder above with a `.git`, else the cwd itself.
 */
export function hookProjectRoot(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  for (const name of ['CLAUDE_PROJECT_DIR', 'GEMINI_PROJECT_DIR']) {
    const named = env[name];
    if (named && isAbsolute(named) && isInsideDirectory(cwd, resolve(named))) return resolve(named);
  }
  for (let folder = cwd; ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder;
    if (dirname(folder) === folder) return cwd;
  }
}

/**
 * A flagged ask when a shell call runs with a variable that runs project code, else undefined: set
 * by the project's host configuration or by the call's own fields (Codex's `local_shell` `env`).
 * Shell-start variables (`BASH_ENV`, `LD_PRELOAD`, a project `PATH`) count for every command;
 * program variables (`NODE_OPTIONS`, `GIT_CONFIG_*`) when the command runs a program that reads them.
 */
async function hostVariableRead(
  session: Session,
  calls: readonly GuardCall[],
  projectAssignments: readonly HostAssignment[],
  projectRoot: string,
  home: string,
): Promise<GuardDecision | undefined> {
  const cwd = session.context.run.cwd;
  for (const planned of calls) {
    if (planned.tool !== 'Bash') continue;
    const own: HostAssignment[] = (planned.env?.assignments ?? []).map(([name, value]) => ({
      name,
      value,
      file: `the call's \`${planned.env?.field}\` field`,
    }));
    const assignments = own.length === 0 ? projectAssignments : [...projectAssignments, ...own];
    const shellCode = shellCodeAssignment(projectRoot, cwd, assignments);
    if (shellCode?.unreadable !== undefined)
      return {
        verdict: 'ask',
        reason: terminalText(
          `Safety check: ${shellCode.unreadable}, and the agent loads it into the environment of the commands its shell runs, so the guard cannot tell what it sets. Make it a small regular file (or run the command yourself).`,
        ),
        flagged: true,
      };
    if (shellCode)
      return {
        verdict: 'ask',
        reason: terminalText(
          `Safety check: ${shellCode.file} sets ${shellCode.name}, which the agent passes to every command its shell runs, so any command may run the project's code first. Remove it from there (or run the command yourself).`,
        ),
        flagged: true,
      };
    if (!assignments.some(({ name, value }) => isProgramCodeAssignment(name, value))) continue;
    await loadShellParser();
    const command = String(inFolder(planned, cwd).input['command'] ?? '');
    const found = programAssignment(assignments, command, cwd, home);
    if (!found) continue;
    const { file, name } = found.assignment;
    const runs =
      found.program === undefined
        ? 'the command is too complex to tell which programs it runs, and any of them may read it'
        : `\`${found.program}\` reads it`;
    return {
      verdict: 'ask',
      reason: terminalText(
        `Safety check: ${file} sets ${name}, which the agent passes to the commands its shell runs, and ${runs}: it may run the project's code. Remove it from there (or run the command yourself).`,
      ),
      flagged: true,
    };
  }
  return undefined;
}

/** The guard's decision for one hook payload: every efferent call the host call maps to, the strongest answer. */
export async function decideHookPayload(payload: HookPayload, flags: GuardFlags): Promise<GuardDecision> {
  const plan = planGuardCalls(payload);
  if (plan.kind === 'no-opinion') return { verdict: 'no-opinion', reason: plan.reason };
  if (plan.kind === 'unknown') return { verdict: 'ask', reason: `${plan.reason}, so it is asked about` };
  const mode = flags.mode ?? payload.permissionMode;
  const standIns: AnyTool[] = [...guardStandIns];
  for (const call of plan.calls) if (call.tool.startsWith('mcp__')) standIns.push(mcpStandIn(call.tool));
  const projectRoot = hookProjectRoot(payload.cwd);
  // The host's environment carries what the project's configuration set: the locations of the
  // user's and the machine's configuration are not taken from it where the project could choose them.
  const locations = guardLocations(projectRoot, payload.cwd, process.env, flags.home);
  for (const notice of locations.notices) process.stderr.write(`efferent guard: ${terminalText(notice)}\n`);
  const home = locations.home;
  const options = await resolveTrust(
    { ...flags, cwd: payload.cwd },
    {
      ...sessionOptionsFromFlags({ ...flags, cwd: payload.cwd }, mode),
      projectRoot,
      model: 'none',
      home,
      // The host runs its own hooks; efferent's would include this guard again.
      runHooks: false,
      loadShellParserAtStart: false,
      extraTools: standIns,
      persistRules: false,
      managedSettingsPath: locations.managedSettingsPath,
    },
    home,
  );
  const session = await createSession(options);
  try {
    let strongest: GuardDecision = { verdict: 'allow', reason: '' };
    const reasons: string[] = [];
    for (const planned of plan.calls) {
      const call = inFolder(planned, session.context.run.cwd);
      const decided = await decideCall(session, call.tool, knownFields(session, call));
      const decision = decided.behavior === 'deny' ? decided : (searchedDenial(session, planned) ?? decided);
      const reason = explain(decision);
      reasons.push(reason);
      // Only "no rule allows it" (`default`) may be left to the host; an ask of unknown kind is flagged.
      const flagged = decision.behavior === 'ask' && decision.askKind !== 'default';
      if (
        strength[decision.behavior] > strength[strongest.verdict] ||
        (decision.behavior === strongest.verdict && flagged && !strongest.flagged)
      )
        strongest = { verdict: decision.behavior, reason, ...(flagged ? { flagged } : {}) };
    }
    if (strongest.verdict === 'allow') strongest.reason = reasons.join('; ');
    if (strongest.verdict === 'deny' || !plan.calls.some((call) => call.tool === 'Bash')) return strongest;
    // The host hands the project's own variables, and the call's, to its shell: some run project
    // code before any command, others under the programs that read them. Nothing short of a deny
    // stands then: the call is a flagged ask.
    const assignments = projectHostAssignments(projectRoot, payload.cwd);
    const read = await hostVariableRead(session, plan.calls, assignments, projectRoot, home);
    return read ?? strongest;
  } finally {
    await session.dispose();
  }
}

/** `efferent guard`: efferent's permission decision for another agent's tool call, as its pre-tool hook. */
export function registerGuardCommand(program: Command): void {
  const command = program
    .command('guard')
    .description(
      "Decide another agent's tool calls with efferent's permission engine: a pre-tool hook for Claude Code, Codex and Gemini CLI that reads the hook's JSON on stdin and answers allow, ask or deny.",
    )
    .addOption(
      new Option('--agent <agent>', 'the hook format (default: detected from the input)').choices([
        ...guardHosts,
      ]),
    )
    .addOption(
      new Option(
        '--on-ask <action>',
        "when efferent would ask: ask (Claude Code prompts), defer (the agent's own approval decides), or deny",
      )
        .choices(['ask', 'defer', 'deny'])
        .default('ask'),
    )
    .addOption(
      new Option(
        '--on-allow <action>',
        "when efferent allows: allow (no prompt from the agent), or defer (the agent's own approval decides)",
      )
        .choices(['allow', 'defer'])
        .default('allow'),
    )
    .option('--print-config', 'print the hook configuration that installs the guard in the agent, and exit')
    .option('--home <dir>', 'home directory for ~ in rules and paths, user settings and the trust list');
  addSessionFlags(command, '--mode').action(async (flags: GuardFlags) => {
    if (flags.printConfig) {
      process.stdout.write(hostHookConfig(flags.agent ?? 'claude'));
      return;
    }
    let payload: HookPayload;
    let decision: GuardDecision;
    try {
      payload = parseHookPayload(await readStdin(), flags.agent);
      decision = await decideHookPayload(payload, flags);
    } catch (error) {
      // Every host runs the tool when a hook fails in any other way: exit 2 is the one answer that blocks.
      process.stderr.write(
        `efferent guard: ${errorMessage(error).replace(/\.$/, '')}. The call is blocked; run \`efferent guard --help\` for the expected input.\n`,
      );
      process.exitCode = 2;
      return;
    }
    const verdict = hostVerdict(payload.host, decision, flags.onAsk ?? 'ask', flags.onAllow ?? 'allow');
    const blockedAsk = decision.verdict === 'ask' && verdict === 'deny';
    const reason = blockedAsk
      ? `efferent would ask a person first (${decision.reason.replace(/\.$/, '')}), and this agent's hook cannot ask, so the call is blocked. If it is expected, allow it with an efferent rule (see \`efferent check\`) or run it yourself.`
      : decision.reason;
    process.stdout.write(renderGuardOutput(payload.host, verdict, `efferent: ${reason}`));
  });
}
