import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/agent/index.ts';
import type { PermissionPrompt } from '../src/core/index.ts';

/**
 * The file a tool opens is the file its permission decision judged. Here the decision asks (an ask
 * rule on `d/`), and while the person reads the prompt, `d` is swapped for a link to a folder outside
 * the project — what a background command racing the tool would do. Approving must not read or write
 * through the link.
 */
let root: string;
let project: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-checked-')));
  project = join(root, 'project');
  outside = join(root, 'outside');
  mkdirSync(join(project, 'd'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(project, 'd', 'notes.txt'), 'project notes\n');
  writeFileSync(join(project, 'd', 'book.ipynb'), notebook('project cell'));
  writeFileSync(join(outside, 'notes.txt'), 'OUTSIDE SECRET\n');
  writeFileSync(join(outside, 'book.ipynb'), notebook('OUTSIDE SECRET'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function notebook(source: string): string {
  return JSON.stringify({
    cells: [
      { cell_type: 'code', id: 'c1', source: [source], metadata: {}, outputs: [], execution_count: null },
    ],
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}

/** Swaps `project/d` for a link to `outside`, the way a racing process would. */
function swapForLink(): void {
  renameSync(join(project, 'd'), join(project, 'd-real'));
  symlinkSync(outside, join(project, 'd'));
}

async function sessionSwappingOnPrompt(armed: boolean) {
  const prompts: PermissionPrompt[] = [];
  const state = { swap: armed };
  const session = await createSession({
    cwd: project,
    home: join(root, 'home'),
    trusted: false,
    cli: { settings: JSON.stringify({ permissions: { ask: ['Read(./d/**)', 'Edit(./d/**)'] } }) },
    askUser: async (prompt) => {
      prompts.push(prompt);
      if (state.swap) swapForLink();
      return { choice: 'allow-once' };
    },
  });
  return { session, prompts, arm: () => (state.swap = true) };
}

describe('a file tool opens the file its permission decision judged', () => {
  it('control: without a swap, the approved Read and Edit work on the project file', async () => {
    const { session, prompts } = await sessionSwappingOnPrompt(false);
    try {
      const read = await session.callTool('Read', { file_path: join(project, 'd', 'notes.txt') });
      expect(read.isError ?? false).toBe(false);
      expect(JSON.stringify(read.content)).toContain('project notes');
      const edit = await session.callTool('Edit', {
        file_path: join(project, 'd', 'notes.txt'),
        old_string: 'project',
        new_string: 'edited',
      });
      expect(edit.isError ?? false).toBe(false);
      expect(readFileSync(join(project, 'd', 'notes.txt'), 'utf8')).toBe('edited notes\n');
      expect(prompts.length).toBe(2);
    } finally {
      await session.dispose();
    }
  });

  it('Read approved while d became a link to outside reads nothing', async () => {
    const { session, prompts } = await sessionSwappingOnPrompt(true);
    try {
      const read = await session.callTool('Read', { file_path: join(project, 'd', 'notes.txt') });
      expect(prompts.length).toBe(1);
      expect(read.isError).toBe(true);
      const text = JSON.stringify(read.content);
      expect(text).not.toContain('OUTSIDE SECRET');
      expect(text).toMatch(/changed after its permission check/);
    } finally {
      await session.dispose();
    }
  });

  it.each([
    ['Write', { content: 'overwritten\n' }],
    ['Edit', { old_string: 'notes', new_string: 'CHANGED' }],
  ] as const)('%s approved while d became a link to outside changes nothing outside', async (tool, extra) => {
    const { session, arm } = await sessionSwappingOnPrompt(false);
    try {
      // Changing an existing file needs a Read of it first, made while d is still a folder.
      const before = await session.callTool('Read', { file_path: join(project, 'd', 'notes.txt') });
      expect(before.isError ?? false, JSON.stringify(before.content)).toBe(false);
      arm();
      const result = await session.callTool(tool, { file_path: join(project, 'd', 'notes.txt'), ...extra });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/changed after its permission check/);
      expect(readFileSync(join(outside, 'notes.txt'), 'utf8')).toBe('OUTSIDE SECRET\n');
      expect(readFileSync(join(project, 'd-real', 'notes.txt'), 'utf8')).toBe('project notes\n');
    } finally {
      await session.dispose();
    }
  });

  it('NotebookEdit approved while d became a link to outside changes nothing outside', async () => {
    const { session, arm } = await sessionSwappingOnPrompt(false);
    try {
      const path = join(project, 'd', 'book.ipynb');
      const before = await session.callTool('Read', { file_path: path });
      expect(before.isError ?? false).toBe(false);
      arm();
      const result = await session.callTool('NotebookEdit', {
        notebook_path: path,
        cell_id: 'c1',
        new_source: 'x = 1',
      });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/changed after its permission check/);
      expect(readFileSync(join(outside, 'book.ipynb'), 'utf8')).toBe(notebook('OUTSIDE SECRET'));
    } finally {
      await session.dispose();
    }
  });
});
