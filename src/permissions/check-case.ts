import type {
  AnyTool,
  DecisionTrace,
  PermissionMode,
  PermissionTarget,
  ToolPermissionResult,
} from '../core/index.ts';
import { createToolUseContext, permissionModes } from '../core/index.ts';
import type { ShellAnalyzer } from './decide/shell/shell-contract.ts';
import { knownToolDeclarations } from './known-tools.ts';
import type { RealpathFn } from './paths/canonical-path.ts';
import { evaluatePermission } from './decide/evaluate-permission.ts';
import { createWorkspace } from './decide/workspace.ts';
import { buildRules } from './rules/build-rules.ts';
import { canonicalToolName } from './rules/tool-names.ts';
import { findToolByName } from '../core/tool-lookup.ts';
import type { RuleSet } from './rules/rule-types.ts';

/**
 * One hypothetical call for `efferent check`: which tool, what input, in which directory, mode and
 * rules. Rules are read as a trusted project's settings would give them (`/x` relative to `cwd`).
 */
export interface CheckCase {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  mode?: PermissionMode;
  rules?: { allow?: string[]; deny?: string[]; ask?: string[] };
  home?: string;
}

/** The answer for one case. */
export interface CheckResult {
  behavior: 'allow' | 'deny' | 'ask';
  /** The tool's `isReadOnly(input)`; null when the tool cannot say. */
  readOnly: boolean | null;
  trace: DecisionTrace;
  message?: string;
}

/** What checking needs besides the case. */
export interface CheckOptions {
  /** The tool pool; its tools take precedence over the stand-in declarations. */
  tools: readonly AnyTool[];
  shell?: ShellAnalyzer & { isReadOnlyCommand?: (command: string, options: { cwd?: string }) => boolean };
  realpath?: RealpathFn;
  /** The home directory for cases that do not name one. */
  defaultHome: string;
  /** Rules that apply on top of the case's own (e.g. loaded settings). */
  extraRules?: RuleSet;
}

interface ResolvedTool {
  name: string;
  aliases: readonly string[];
  target: PermissionTarget;
  readOnly: boolean | null;
  toolResult: ToolPermissionResult;
}

async function resolveTool(
  check: CheckCase,
  options: CheckOptions,
  home: string,
  mode: PermissionMode,
): Promise<ResolvedTool> {
  const name = canonicalToolName(check.tool);
  const tool = findToolByName(options.tools, name) ?? findToolByName(options.tools, check.tool);
  if (tool) {
    const context = createToolUseContext({
      cwd: check.cwd,
      projectRoot: check.cwd,
      permissionMode: mode,
      env: { HOME: home },
    });
    const parsed = tool.inputSchema.safeParse(check.input);
    const input = { ...(parsed.success ? (parsed.data as Record<string, unknown>) : check.input) };
    const guard = <T>(run: () => T, fallback: T): T => {
      try {
        return run();
      } catch {
        return fallback;
      }
    };
    const toolResult = await tool.checkPermissions(input, context).catch(
      (): ToolPermissionResult => ({
        behavior: 'ask',
        message: `${tool.name} could not check this input`,
        classifierApprovable: false,
      }),
    );
    return {
      name: tool.name,
      aliases: tool.aliases,
      target: guard(() => tool.permissionTarget(input, context), { kind: 'none' } as PermissionTarget),
      readOnly: guard<boolean | null>(() => tool.isReadOnly(input), null),
      toolResult,
    };
  }
  const declaration = Object.hasOwn(knownToolDeclarations, name) ? knownToolDeclarations[name] : undefined;
  if (!declaration)
    return {
      name,
      aliases: [],
      target: { kind: 'none' },
      readOnly: null,
      toolResult: { behavior: 'passthrough' },
    };
  const target = declaration.target(check.input, check.cwd);
  let readOnly = declaration.readOnly(check.input);
  if (
    readOnly === null &&
    target.kind === 'command' &&
    target.shell === 'bash' &&
    options.shell?.isReadOnlyCommand
  ) {
    try {
      readOnly = options.shell.isReadOnlyCommand(target.command, { cwd: check.cwd });
    } catch {
      readOnly = null;
    }
  }
  return {
    name,
    aliases: declaration.aliases ?? [],
    target,
    readOnly,
    toolResult: { behavior: 'passthrough' },
  };
}

/** Decides one case with the same evaluation the resolver uses. Throws `settings_invalid` for bad rules. */
export async function checkPermissionCase(check: CheckCase, options: CheckOptions): Promise<CheckResult> {
  const home = check.home ?? options.defaultHome;
  const mode = check.mode ?? 'default';
  if (!permissionModes.includes(mode))
    throw new TypeError(`Unknown mode "${String(mode)}"; use one of ${permissionModes.join(', ')}.`);
  const origin = { source: 'projectSettings' as const, origin: 'the case rules', root: check.cwd };
  const built = (behavior: 'allow' | 'deny' | 'ask') =>
    buildRules(check.rules?.[behavior] ?? [], behavior, origin).rules;
  const extra = options.extraRules ?? { allow: [], deny: [], ask: [] };
  const rules: RuleSet = {
    allow: [...extra.allow, ...built('allow')],
    deny: [...extra.deny, ...built('deny')],
    ask: [...extra.ask, ...built('ask')],
  };
  const tool = await resolveTool(check, options, home, mode);
  const workspace = createWorkspace({
    cwd: check.cwd,
    projectRoot: check.cwd,
    home,
    additionalDirectories: [],
    ...(options.realpath ? { realpath: options.realpath } : {}),
  });
  const evaluation = evaluatePermission({
    tool: { name: tool.name, aliases: tool.aliases },
    input: check.input,
    target: tool.target,
    readOnly: tool.readOnly,
    toolResult: tool.toolResult,
    mode,
    rules,
    workspace,
    ...(options.shell ? { shell: options.shell } : {}),
  });
  const result: CheckResult = {
    behavior: evaluation.behavior,
    readOnly: tool.readOnly,
    trace: evaluation.trace,
  };
  if (evaluation.message !== undefined) result.message = evaluation.message;
  return result;
}
