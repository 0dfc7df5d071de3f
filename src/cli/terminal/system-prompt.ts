import { homedir } from 'node:os';
import { join } from 'node:path';
import { readOwnFileSync } from '../../core/index.ts';

/** The most of one memory file that goes into the prompt. */
const maxMemoryChars = 40_000;

/** A memory file that was read. */
export interface MemoryFile {
  path: string;
  text: string;
}

/**
 * Project memory, in the order it is read into the system prompt (later files are more specific):
 * the user's `<config>/EFFERENT.md`, `<config>/AGENTS.md` and `~/.claude/CLAUDE.md`, then the
 * project's `EFFERENT.md`, `AGENTS.md` and `CLAUDE.md` at its root. Missing files are skipped; each
 * file is cut at 40,000 characters.
 */
export function memoryFilePaths(options: {
  projectRoot: string;
  configDir: string;
  home?: string;
}): string[] {
  const home = options.home ?? homedir();
  return [
    join(options.configDir, 'EFFERENT.md'),
    join(options.configDir, 'AGENTS.md'),
    join(home, '.claude', 'CLAUDE.md'),
    join(options.projectRoot, 'EFFERENT.md'),
    join(options.projectRoot, 'AGENTS.md'),
    join(options.projectRoot, 'CLAUDE.md'),
  ];
}

/**
 * Reads the memory files that exist (see {@link memoryFilePaths}). A file under `projectRoot` is read
 * only if it lies inside the project once links are followed: a cloned repository's `CLAUDE.md` may
 * be a link to `~/.ssh/id_rsa`, and nothing asks before memory reaches the model. Such a file, and
 * anything that is not a regular file, is skipped and reported through `onSkipped`.
 */
export function readMemoryFiles(
  paths: readonly string[],
  options: { projectRoot?: string; onSkipped?: (reason: string) => void } = {},
): MemoryFile[] {
  const files: MemoryFile[] = [];
  for (const path of [...new Set(paths)]) {
    const read = readOwnFileSync(path, {
      maxBytes: maxMemoryChars * 4,
      cutOversize: true,
      ...(options.projectRoot !== undefined ? { projectRoot: options.projectRoot } : {}),
    });
    if (read.kind === 'refused') options.onSkipped?.(`Memory file skipped: ${read.reason}.`);
    if (read.kind !== 'read') continue;
    const text = read.text;
    if (text.trim() === '') continue;
    files.push({
      path,
      text:
        text.length > maxMemoryChars
          ? `${text.slice(0, maxMemoryChars)}\n[cut at ${maxMemoryChars} characters]`
          : text,
    });
  }
  return files;
}

/** The system prompt `efferent run` sends: who the agent is, where it works, and the project's memory. */
export function defaultSystemPrompt(options: {
  cwd: string;
  platform?: string;
  date?: Date;
  memory?: readonly MemoryFile[];
}): string {
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  const lines = [
    'You are a software engineering agent working in a terminal through the tools you are given.',
    'Prefer the dedicated tools (Read, Edit, Write, Glob, Grep) over shell equivalents; use Bash for builds, tests and git.',
    'Call independent read-only tools together in one message: they run in parallel.',
    'Read a file before editing it. Keep answers short and say what you changed.',
    '',
    `Working directory: ${options.cwd}`,
    `Platform: ${options.platform ?? process.platform}`,
    `Date: ${date}`,
  ];
  if (options.memory && options.memory.length > 0) {
    lines.push(
      '',
      'Instructions from memory files follow, general ones first; where they disagree, the later (more specific) file wins.',
    );
    for (const file of options.memory)
      lines.push('', `<memory path="${file.path}">`, file.text.trimEnd(), '</memory>');
  }
  return lines.join('\n');
}
