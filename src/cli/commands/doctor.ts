import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { configurationLocations, createSession, isWorkspaceTrusted } from '../../agent/index.ts';
import { loadMcpConfiguration } from '../../mcp/config.ts';
import {
  configurationEnvironment,
  formatSettingsWarning,
  type LoadedSettings,
} from '../../permissions/index.ts';
import { probeSandbox } from '../../tools/shared/process/sandbox.ts';
import { locateRipgrep } from '../../tools/shared/ripgrep.ts';
import { mcpConfigOptions } from '../terminal/mcp-session.ts';
import { chooseModelSpec } from '../terminal/resolve-provider.ts';
import { statusLineSetting } from '../terminal/status-line.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import {
  addSessionFlags,
  resolveTrust,
  type SessionFlags,
  sessionOptionsFromFlags,
} from '../terminal/session-flags.ts';

interface DoctorFlags extends SessionFlags {
  home?: string;
}

/** Hook handler types efferent runs; the others are listed as skipped. */
const runnableHookTypes = new Set(['command', 'http', 'prompt']);

/** Every settings file efferent looks for, highest precedence first, and what became of each. */
function settingsFileLines(settings: LoadedSettings, managedPath: string): string[] {
  const { projectRoot, home } = settings;
  const candidates = [
    managedPath,
    join(projectRoot, '.efferent', 'settings.local.json'),
    join(projectRoot, '.efferent', 'settings.json'),
    join(home, '.efferent', 'settings.json'),
    join(projectRoot, '.claude', 'settings.local.json'),
    join(projectRoot, '.claude', 'settings.json'),
    join(home, '.claude', 'settings.json'),
  ];
  const read = new Map(settings.files.map((file) => [file.origin, file.source]));
  const skipped = new Set(settings.warnings.filter((w) => w.key === '(file)').map((w) => w.file));
  const partly = new Set(settings.warnings.filter((w) => w.key === '(syntax)').map((w) => w.file));
  const lines = candidates.map((path) => {
    const source = read.get(path);
    if (source && partly.has(path))
      return `  partly    ${path} (${source}: not valid JSON, only its restrictions apply; see its warning)`;
    if (source) return `  read      ${path} (${source})`;
    if (skipped.has(path)) return `  skipped   ${path} (see its warning)`;
    return existsSync(path) ? `  not read  ${path} (Claude compatibility is off)` : `  absent    ${path}`;
  });
  for (const file of settings.files)
    if (!candidates.includes(file.origin)) lines.push(`  read      ${file.origin} (${file.source})`);
  return lines;
}

/** Events that fire only around subagents, which the CLI never starts. */
const subagentEvents: ReadonlySet<string> = new Set(['SubagentStart', 'SubagentStop']);

function hookLines(settings: LoadedSettings): string[] {
  const lines: string[] = [];
  for (const layer of settings.hooks) {
    for (const [event, groups] of Object.entries(layer.hooks)) {
      for (const group of groups ?? []) {
        for (const handler of group.hooks) {
          const what =
            typeof handler.command === 'string'
              ? handler.command
              : typeof handler.url === 'string'
                ? handler.url
                : typeof handler['prompt'] === 'string'
                  ? `${handler['prompt']} (asks the model of efferent run; skipped by check and call)`
                  : JSON.stringify(handler);
          const matcher = group.matcher ? ` [${group.matcher}]` : '';
          const skipped = runnableHookTypes.has(handler.type)
            ? ''
            : ` — not supported: efferent skips ${handler.type} hooks (with a warning when one would run)`;
          const note = subagentEvents.has(event)
            ? ' — fires only in subagents: efferent has no subagent tool, so only a program running the loop on createSubagentContext starts one'
            : '';
          lines.push(`  ${event}${matcher} ${handler.type}: ${what} (${layer.origin})${skipped}${note}`);
        }
      }
    }
  }
  if (settings.disableAllHooks) lines.push('  (the managed policy disables all hooks)');
  return lines.length > 0 ? lines : ['  (none)'];
}

/** Which model `efferent run` without `--model` would use, and where that choice comes from. */
function modelLine(settings: LoadedSettings, env: Readonly<Record<string, string | undefined>>): string {
  const configured = configurationEnvironment(env, settings.env);
  const spec = chooseModelSpec(undefined, configured, settings.model);
  if (spec === undefined) return 'Model: chosen by the API key set (ANTHROPIC_API_KEY, OPENAI_API_KEY)';
  const from = configured['ANTHROPIC_MODEL']?.trim()
    ? `ANTHROPIC_MODEL${Object.hasOwn(settings.env, 'ANTHROPIC_MODEL') ? ' from settings env' : ''}`
    : 'the settings model key';
  return `Model: ${spec} (${from}; --model overrides it)`;
}

/** `efferent doctor`: what efferent found and will use, and every problem with it. */
export function registerDoctorCommand(program: Command): void {
  const command = program
    .command('doctor')
    .description(
      'Show the settings files found and their warnings, the hooks, MCP servers, sandbox and ripgrep efferent will use.',
    )
    .option('--home <dir>', 'home directory (user settings and the trust list)');
  addSessionFlags(command).action(async (flags: DoctorFlags) => {
    const base = sessionOptionsFromFlags(flags);
    const locations = configurationLocations(flags.home ? { ...base, home: flags.home } : base);
    const home = locations.home;
    const options = await resolveTrust(
      flags,
      { ...base, home, model: 'none', runHooks: false, managedSettingsPath: locations.managedSettingsPath },
      home,
    );
    const env = options.env ?? process.env;
    const managedPath = locations.managedSettingsPath;
    const trusted = options.trusted ?? (await isWorkspaceTrusted(home, options.cwd));
    await using session = await createSession({ ...options, trusted });
    const settings = session.settings;
    const out: string[] = [`efferent doctor: ${settings.projectRoot}`, ''];
    out.push(`Workspace: ${trusted ? 'trusted' : 'not trusted (project settings may only tighten)'}`);
    out.push(`Permission mode: ${settings.defaultMode}`);
    out.push(modelLine(settings, env));
    if (settings.statusLine !== undefined) {
      const status = statusLineSetting(settings.statusLine);
      out.push(
        status
          ? `Status line: ${status.command} (interactive run shows its first line above each prompt)`
          : 'Status line: not used (only {"type": "command", "command": …} is supported)',
      );
    }
    out.push('', 'Settings files (highest precedence first):', ...settingsFileLines(settings, managedPath));
    out.push('', `Warnings (${settings.warnings.length}):`);
    out.push(
      ...(settings.warnings.length
        ? settings.warnings.map((w) => `  ${formatSettingsWarning(w)}`)
        : ['  (none)']),
    );
    const notices = [
      ...locations.notices,
      ...settings.notices.filter((notice) => !notice.startsWith('Settings ')),
    ];
    if (notices.length) out.push('', 'Notices:', ...notices.map((notice) => `  ${notice}`));
    out.push('', 'Keys not used by efferent:');
    out.push(
      ...(settings.unusedKeys.length
        ? settings.unusedKeys.map((entry) => `  ${entry.key} (${entry.file}): ${entry.reason}`)
        : ['  (none)']),
    );
    out.push('', 'Hooks:', ...hookLines(settings));
    const mcp = await loadMcpConfiguration(mcpConfigOptions({ ...options, trusted }, flags, trusted, home));
    out.push('', 'MCP servers:');
    out.push(
      ...(mcp.servers.length
        ? mcp.servers.map(
            (server) =>
              `  ${server.name} (${server.config.type}, ${server.scope}, ${server.origin}): ${server.status}${server.blockedBy ? ` — ${server.blockedBy}` : ''}`,
          )
        : ['  (none)']),
      ...mcp.warnings.map((warning) => `  warning: ${warning}`),
    );
    const sandbox = probeSandbox();
    out.push(
      '',
      `Sandbox: ${sandbox.available ? 'bubblewrap works; Bash commands run sandboxed' : `unavailable (${sandbox.reason}); Bash commands run without the OS sandbox`}`,
    );
    const rg = await locateRipgrep(env, undefined, [settings.projectRoot]);
    out.push(
      `Ripgrep: ${rg.source === 'js' ? 'none usable; Grep and Glob use the built-in JavaScript search' : `${rg.path} ${rg.version} (${rg.source})`}`,
    );
    // The report quotes the project's files (rules, hooks, MCP commands): only as text.
    process.stdout.write(`${terminalText(out.join('\n'))}\n`);
  });
}
