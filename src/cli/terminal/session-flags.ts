import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { SessionOptions } from '../../agent/index.ts';
import { type PermissionMode, permissionModes } from '../../core/index.ts';

/** The flags every command that opens a session understands. */
export interface SessionFlags {
  cwd?: string;
  permissionMode?: PermissionMode;
  settings?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
  claudeSettings?: boolean;
  untrusted?: boolean;
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
    .option('--claude-settings', "also read Claude Code's settings files under .claude/")
    .option(
      '--untrusted',
      'do not trust the workspace: its allow rules, directories, env and hooks are ignored',
    );
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
    trusted: !flags.untrusted,
    ...(permissionMode ? { permissionMode } : {}),
    ...(flags.claudeSettings ? { claudeCompat: true } : {}),
  };
}
