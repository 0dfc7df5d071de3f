import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { decideCall } from '../../agent/index.ts';
import {
  EfferentError,
  errorMessage,
  type PermissionMode,
  permissionModes,
  type TraceStep,
} from '../../core/index.ts';
import {
  type CheckCase,
  type CheckOptions,
  type CheckResult,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../../permissions/index.ts';
import { getAllBaseTools } from '../../registry/index.ts';
import { openSession } from '../terminal/mcp-session.ts';
import {
  addSessionFlags,
  reportSettingsNotices,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';

/** Home directory for `--jsonl` cases that do not name one: cases are hypothetical, like their cwd. */
const jsonlDefaultHome = '/home/user';

interface CheckFlags extends SessionFlags {
  jsonl?: boolean;
  mode?: PermissionMode;
  home?: string;
}

function renderStep(step: TraceStep, index: number): string {
  const where = [step.rule ? `rule ${step.rule}` : '', step.source ? `from ${step.source}` : '']
    .filter(Boolean)
    .join(' ');
  return `  ${index + 1}. [${step.stage}] ${step.outcome}: ${step.detail}${where ? ` (${where})` : ''}`;
}

/** The decision and its trace in words. */
export function renderCheckResult(result: Omit<CheckResult, 'behavior'> & { behavior: string }): string {
  const lines = [`Decision: ${result.behavior}`];
  if (result.message) lines.push(`Message: ${result.message}`);
  lines.push(`Read-only: ${result.readOnly === null ? 'unknown' : String(result.readOnly)}`);
  lines.push(
    'Trace:',
    ...(result.trace.length > 0 ? result.trace.map(renderStep) : ['  (no step recorded)']),
  );
  return `${lines.join('\n')}\n`;
}

function parseCase(line: string): CheckCase {
  const value = JSON.parse(line) as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('a case must be a JSON object');
  if (typeof value.tool !== 'string' || value.tool === '') throw new TypeError('"tool" must be a tool name');
  if (typeof value.input !== 'object' || value.input === null || Array.isArray(value.input))
    throw new TypeError('"input" must be an object');
  if (typeof value.cwd !== 'string' || value.cwd === '') throw new TypeError('"cwd" must be a directory');
  if (value.mode !== undefined && !permissionModes.includes(value.mode as PermissionMode)) {
    throw new TypeError(`"mode" must be one of ${permissionModes.join(', ')}`);
  }
  const rules = (value.rules ?? {}) as Record<string, unknown>;
  for (const key of ['allow', 'deny', 'ask']) {
    const list = rules[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((rule) => typeof rule !== 'string'))) {
      throw new TypeError(`"rules.${key}" must be a list of rule strings`);
    }
  }
  const check: CheckCase = {
    tool: value.tool,
    input: value.input as Record<string, unknown>,
    cwd: value.cwd,
    rules: rules as CheckCase['rules'] & object,
  };
  if (value.mode !== undefined) check.mode = value.mode as PermissionMode;
  if (typeof value.home === 'string') check.home = value.home;
  return check;
}

async function runJsonl(flags: CheckFlags, options: CheckOptions): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let output: Record<string, unknown>;
    try {
      const check = parseCase(line);
      if (flags.mode && check.mode === undefined) check.mode = flags.mode;
      const result = await checkPermissionCase(check, options);
      output = { behavior: result.behavior, readOnly: result.readOnly, trace: result.trace };
      if (result.message) output.message = result.message;
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') output.id = id;
    } catch (error) {
      output = { error: errorMessage(error) };
    }
    process.stdout.write(`${JSON.stringify(output)}\n`);
  }
}

/** `efferent check`: explains the permission decision for one call, or for a JSON-lines stream of cases. */
export function registerCheckCommand(program: Command): void {
  const command = program
    .command('check')
    .description(
      'Explain the permission decision for a tool call exactly as `call` and `run` would make it (or, with --jsonl, for hypothetical cases, one per input line).',
    )
    .argument('[tool]', 'tool name, e.g. Bash')
    .argument('[input]', 'tool input as JSON, e.g. \'{"command":"git status"}\'')
    .option(
      '--jsonl',
      'read hypothetical cases {tool,input,cwd,mode,rules,home} from stdin, one per line; write one decision per line',
    )
    .option('--home <dir>', 'home directory for ~ in rules and paths, user settings and the trust list');
  addSessionFlags(command, '--mode').action(
    async (tool: string | undefined, inputText: string | undefined, flags: CheckFlags) => {
      if (flags.jsonl) {
        const shell = await loadDefaultShellAnalyzer();
        await runJsonl(flags, {
          tools: getAllBaseTools(),
          defaultHome: flags.home ?? jsonlDefaultHome,
          ...(shell ? { shell } : {}),
        });
        return;
      }
      if (!tool || inputText === undefined)
        throw new EfferentError('usage', 'Give a tool and its input as JSON, or use --jsonl.');
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(inputText) as Record<string, unknown>;
      } catch (error) {
        throw new EfferentError('usage', `The input is not valid JSON: ${errorMessage(error)}`);
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        throw new EfferentError('usage', 'The input must be a JSON object, e.g. \'{"command":"ls"}\'.');
      // The same session `call` and `run` open (settings, trust, directories, MCP tools), without hooks.
      // Without --home, the session finds the home (refusing one a project could have chosen) and says so.
      const options = await resolveTrust(flags, {
        ...sessionOptionsFromFlags(flags, flags.mode),
        model: 'none',
        ...(flags.home ? { home: flags.home } : {}),
        runHooks: false,
        // decideCall loads the grammar when the call is a shell command.
        loadShellParserAtStart: false,
      });
      const session = await openSession(options, flags);
      try {
        reportSettingsNotices(session.settings.notices, flags);
        process.stdout.write(renderCheckResult(await decideCall(session, tool, input)));
      } finally {
        await session.dispose();
      }
    },
  );
}
