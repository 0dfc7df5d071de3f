import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readOwnFileSync } from '../../core/index.ts';

/** A command from a Markdown file: `/name arguments` sends the file's text as the prompt. */
export interface CustomCommand {
  name: string;
  path: string;
  description: string;
  body: string;
}

/** The built-in commands and what they do, for `/help`. */
export const builtInCommands: ReadonlyArray<[string, string]> = [
  ['/help', 'this list'],
  ['/clear', 'forget the conversation and start again'],
  ['/compact [focus]', 'summarise the conversation so far (by the model) to free context'],
  ['/cost', "this session's tokens and cost"],
  ['/model [provider:name]', 'show the model, or switch to another'],
  ['/permissions', 'the permission rules in force and the file each comes from'],
  ['/exit', 'quit (also Ctrl+C twice at the prompt, or Ctrl+D)'],
];

/** The largest command file read; a prompt template is a few kilobytes. */
const maxCommandBytes = 256 * 1024;

function parse(path: string, text: string): CustomCommand {
  let body = text;
  let description = '';
  const front = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (front) {
    body = text.slice(front[0].length);
    description = /^description:\s*(.+)$/m.exec(front[1] ?? '')?.[1]?.trim() ?? '';
  }
  if (!description) description = body.trim().split('\n')[0]?.slice(0, 80) ?? '';
  return { name: basename(path, '.md'), path, description, body };
}

/**
 * Custom commands from `.efferent/commands/*.md`, then `.claude/commands/*.md` (the first of a name
 * wins), in the project and in the user's config folder. Front matter may give a `description`.
 */
export function loadCustomCommands(folders: readonly string[], projectRoot?: string): CustomCommand[] {
  const commands = new Map<string, CustomCommand>();
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => name.endsWith('.md'));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const path = join(folder, name);
      // A project's command is read only from inside the project (a link may lead to any file).
      const read = readOwnFileSync(path, {
        maxBytes: maxCommandBytes,
        ...(projectRoot !== undefined ? { projectRoot } : {}),
      });
      if (read.kind !== 'read') continue;
      const command = parse(path, read.text);
      if (!commands.has(command.name)) commands.set(command.name, command);
    }
  }
  return [...commands.values()];
}

/** The command folders of a project and a user, in the order they are searched (the user's first in an untrusted folder). */
export function commandFolders(
  projectRoot: string,
  configDir: string,
  home: string,
  options: { trusted?: boolean } = {},
): string[] {
  const project = [join(projectRoot, '.efferent', 'commands'), join(projectRoot, '.claude', 'commands')];
  const user = [join(configDir, 'commands'), join(home, '.claude', 'commands')];
  // A command's text is sent as the person's own message: an untrusted project may add commands,
  // never take the name of one the user wrote.
  return options.trusted === false ? [...user, ...project] : [...project, ...user];
}

/** A custom command's prompt: `$ARGUMENTS` (and `$1`, `$2`, …) replaced, or the arguments appended. */
export function expandCommand(command: CustomCommand, args: string): string {
  const words = args.split(/\s+/).filter(Boolean);
  const body = command.body.trim();
  if (!/\$ARGUMENTS|\$\d/.test(body)) return args ? `${body}\n\n${args}` : body;
  return body
    .replaceAll('$ARGUMENTS', args)
    .replace(/\$(\d)/g, (_, digit: string) => words[Number(digit) - 1] ?? '');
}
