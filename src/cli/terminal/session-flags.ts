import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import { configurationLocations, type SessionOptions, trustWorkspace } from '../../agent/index.ts';
import { EfferentError, type PermissionMode, permissionModes } from '../../core/index.ts';
import { terminalText } from './terminal-text.ts';

/** The flags every command that opens a session understands. */
export interface SessionFlags {
  cwd?: string;
  permissionMode?: PermissionMode;
  settings?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
  claudeSettings?: boolean;
  /** `--no-claude` sets it to false: do not read Claude Code's `.claude/` files. */
  claude?: boolean;
  trust?: boolean;
  untrusted?: boolean;
  /** `--mcp-config FILE|JSON…`: MCP servers for this run. */
  mcpConfig?: string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers. */
  strictMcpConfig?: boolean;
}

/** Adds the session flags to a command (`--permission-mode` is spelled `modeFlag`, e.g. `--mode`). */
export function addSessionFlags(command: Command, modeFlag = '--permission-mode'): Command {
  return command
    .option('--cwd <dir>', 'working directory and project root (default: the current directory)')
    .addOption(new Option(`${modeFlag} <mode>`, 'permission mode').choices([...permissionModes]))
    .option('--settings <file-or-json>', 'extra settings file or JSON')
    .option('--allowedTools <rules...>', 'allow rules, e.g. "Bash(npm test)" "Read"')
    .option('--disallowedTools <rules...>', 'deny rules, e.g. "Bash(git push *)"')
    .option('--add-dir <dirs...>', 'more directories the tools may work in')
    .option('--claude-settings', "read Claude Code's settings files under .claude/ (the default)")
    .option('--no-claude', "do not read Claude Code's files under .claude/ (settings, MCP servers)")
    .option(
      '--trust',
      'trust this folder from now on: its settings may allow commands, add directories and run hooks',
    )
    .option(
      '--untrusted',
      'do not trust the workspace: its allow rules, directories, env and hooks are ignored',
    )
    .option('--mcp-config <files-or-json...>', 'MCP servers to use: .mcp.json-style files or JSON text')
    .option('--strict-mcp-config', 'use only the --mcp-config servers (ignore .mcp.json and settings)');
}

/** Session options from the flags; the mode may come from a differently named flag. */
export function sessionOptionsFromFlags(flags: SessionFlags, mode?: PermissionMode): SessionOptions {
  const cwd = resolve(flags.cwd ?? process.cwd());
  const permissionMode = mode ?? flags.permissionMode;
  const cli: NonNullable<SessionOptions['cli']> = {};
  if (flags.settings) cli.settings = flags.settings;
  if (flags.allowedTools?.length) cli.allowedTools = flags.allowedTools;
  if (flags.disallowedTools?.length) cli.disallowedTools = flags.disallowedTools;
  if (flags.addDir?.length) cli.additionalDirectories = flags.addDir.map((dir) => resolve(cwd, dir));
  return {
    cwd,
    cli,
    // Without a flag, trust comes from the user's list of trusted folders (fail closed).
    ...(flags.untrusted ? { trusted: false } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(flags.claude === false
      ? { claudeCompat: false }
      : flags.claudeSettings
        ? { claudeCompat: true }
        : {}),
  };
}

/**
 * Applies `--trust` (records the folder in the user's trust list) and returns the options to open the
 * session with. `--untrusted` wins over a recorded trust for this run.
 */
export async function resolveTrust(
  flags: SessionFlags,
  options: SessionOptions,
  home = options.home ?? configurationLocations(options).home,
): Promise<SessionOptions> {
  if (flags.trust && flags.untrusted) {
    throw new EfferentError('usage', 'Give either --trust or --untrusted, not both.');
  }
  if (flags.trust) {
    await trustWorkspace(home, options.projectRoot ?? options.cwd);
    return { ...options, trusted: true };
  }
  return options;
}

/** Tells the user, on stderr, what the settings loader ignored or refused (untrusted folder, modes). */
export function reportSettingsNotices(
  notices: readonly string[],
  flags: SessionFlags,
  errors: Writable = process.stderr,
): void {
  // With --untrusted the user asked for exactly this; the trust notices would be noise.
  const shown = flags.untrusted ? notices.filter((notice) => !isTrustNotice(notice)) : notices;
  // Notices quote the project's own files (a skipped rule): they reach the terminal only as text.
  for (const notice of shown) errors.write(`notice: ${terminalText(notice)}\n`);
  if (shown.some(isTrustNotice)) {
    errors.write('notice: run with --trust once to trust this folder, or --untrusted to silence this.\n');
  }
}

/** True for the loader's notices about an untrusted folder. */
export function isTrustNotice(notice: string): boolean {
  return notice.includes('not trusted');
}
