import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkedConfigDir, type ContentBlock, EfferentError, type Message } from '../../core/index.ts';
import { apiContentBlock } from './stream-json.ts';

/**
 * Session transcripts: one JSONL file per session under
 * `<config>/projects/<project>/<session>.jsonl`, where `<config>` is EFFERENT_CONFIG_DIR or
 * `~/.efferent` and `<project>` the working directory with every other character than letters and
 * digits turned into `-` (Claude Code's layout). Each line is one message in the Messages API's
 * spelling, with the session id, cwd, time and a uuid chain.
 */

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `EFFERENT_CONFIG_DIR`, else `~/.efferent`. The variable is not followed when a project could have
 * chosen it (relative, or inside `projectFolders`): transcripts, user memory and commands and MCP
 * tokens are the user's, never the project's files.
 */
export function efferentConfigDir(
  env: Env = process.env,
  home = homedir(),
  projectFolders: readonly string[] = [process.cwd()],
): string {
  return checkedConfigDir(home, projectFolders, env).path;
}

/** The folder of a project's transcripts. */
export function projectTranscriptDir(configDir: string, cwd: string): string {
  return join(configDir, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

/** Appends a session's messages as they happen. */
export class Transcript {
  readonly path: string;
  readonly #sessionId: string;
  readonly #cwd: string;
  #parent: string | null = null;
  #queue: Promise<void> = Promise.resolve();
  #created = false;

  constructor(path: string, sessionId: string, cwd: string) {
    this.path = path;
    this.#sessionId = sessionId;
    this.#cwd = cwd;
  }

  /** Adds one message (writes are queued, so lines keep their order). */
  append(message: Message): Promise<void> {
    const uuid = randomUUID();
    const line = {
      type: message.role,
      message: { role: message.role, content: message.content.map(apiContentBlock) },
      ...(message.role === 'user' && message.isMeta ? { isMeta: true } : {}),
      uuid,
      parentUuid: this.#parent,
      sessionId: this.#sessionId,
      cwd: this.#cwd,
      timestamp: new Date().toISOString(),
    };
    this.#parent = uuid;
    this.#queue = this.#queue.then(async () => {
      if (!this.#created) {
        await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 });
        this.#created = true;
      }
      // One line per append (O_APPEND): a crash leaves every earlier line whole.
      await appendFile(this.path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    });
    return this.#queue;
  }

  /** Resolves when everything appended so far is on disk. */
  flushed(): Promise<void> {
    return this.#queue;
  }
}

/** A content block in the Messages API's spelling, back in efferent's. */
function fromApiBlock(block: Record<string, unknown>): ContentBlock | undefined {
  switch (block['type']) {
    case 'text':
      return { type: 'text', text: String(block['text'] ?? '') };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: String(block['id']),
        name: String(block['name']),
        input: (block['input'] ?? {}) as Record<string, unknown>,
      };
    case 'tool_result': {
      const content = block['content'];
      const result: ContentBlock = {
        type: 'tool_result',
        toolUseId: String(block['tool_use_id']),
        content:
          typeof content === 'string'
            ? content
            : ((content as Array<Record<string, unknown>>)
                .map(fromApiBlock)
                .filter((part) => part?.type === 'text' || part?.type === 'image') as Array<
                Extract<ContentBlock, { type: 'text' | 'image' }>
              >),
      };
      if (block['is_error'] === true) result.isError = true;
      return result;
    }
    case 'image': {
      const source = block['source'] as { media_type?: string; data?: string } | undefined;
      if (!source?.data) return undefined;
      return {
        type: 'image',
        source: { type: 'base64', mediaType: source.media_type as never, data: source.data },
      };
    }
    case 'thinking': {
      const signature = block['signature'];
      return {
        type: 'thinking',
        thinking: String(block['thinking'] ?? ''),
        ...(typeof signature === 'string' && signature !== '' ? { signature } : {}),
      };
    }
    default:
      return undefined;
  }
}

/** The conversation a transcript holds; a broken line ends the error with what to do. */
export async function loadTranscript(path: string): Promise<Message[]> {
  const text = await readFile(path, 'utf8');
  const messages: Message[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    let line: { type?: string; message?: { role?: string; content?: unknown }; isMeta?: boolean };
    try {
      line = JSON.parse(raw);
    } catch {
      throw new EfferentError(
        'session_invalid',
        `Transcript ${path} line ${index + 1} is not JSON; remove the line or start a new session.`,
      );
    }
    if ((line.type !== 'user' && line.type !== 'assistant') || !Array.isArray(line.message?.content)) return;
    const content = (line.message.content as Array<Record<string, unknown>>)
      .map(fromApiBlock)
      .filter((block): block is ContentBlock => block !== undefined);
    if (line.type === 'user')
      messages.push({ role: 'user', content, ...(line.isMeta ? { isMeta: true } : {}) });
    else messages.push({ role: 'assistant', content });
  });
  return messages;
}

/** A saved session of a project. */
export interface SavedSession {
  id: string;
  path: string;
  modified: Date;
  /** The first thing the user typed, shortened, for the picker. */
  firstPrompt: string;
}

/** The project's sessions, newest first. */
export async function listSessions(configDir: string, cwd: string): Promise<SavedSession[]> {
  const dir = projectTranscriptDir(configDir, cwd);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const sessions = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const [info, messages] = await Promise.all([stat(path), loadTranscript(path).catch(() => [])]);
      const first = messages.find((message) => message.role === 'user' && !message.isMeta);
      const text = first?.content.find((block) => block.type === 'text');
      const prompt = text?.type === 'text' ? text.text.replace(/\s+/g, ' ') : '';
      return {
        id: name.slice(0, -'.jsonl'.length),
        path,
        modified: info.mtime,
        firstPrompt: prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt,
      };
    }),
  );
  return sessions.sort((left, right) => right.modified.getTime() - left.modified.getTime());
}

/** The session `id` of the project (a unique prefix is enough), or a usage error saying what exists. */
export async function findSession(configDir: string, cwd: string, id: string): Promise<SavedSession> {
  const sessions = await listSessions(configDir, cwd);
  const matches = sessions.filter((session) => session.id === id || session.id.startsWith(id));
  const exact = matches.find((session) => session.id === id);
  if (exact) return exact;
  if (matches.length === 1 && matches[0]) return matches[0];
  throw new EfferentError(
    'usage',
    sessions.length === 0
      ? `No saved sessions for ${cwd}; start one with efferent run.`
      : `No single session "${id}" for ${cwd}; run efferent run --resume without an id to pick one.`,
  );
}
