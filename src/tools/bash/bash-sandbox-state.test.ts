import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { persistText } from '../../budget/persist.ts';
import type { ToolUseContext } from '../../core/index.ts';
import { probeSandbox } from '../shared/process/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, delay, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { TodoWriteTool } from '../todo-write/todo-write.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

/** Text persisted by the host in every variant; its content-addressed name is predictable. */
const persisted = 'persisted result text\n';
const persistedName = `${createHash('sha256').update(persisted).digest('hex').slice(0, 16)}.txt`;

/** Session-state paths (below the session folder) a command might try to replace with a link. */
const statePaths = ['todos', 'todos/main.json', 'shell', 'tool-results', `tool-results/${persistedName}`];

/**
 * The files of running commands (output and cwd files; their names are random, so a command
 * replaces whatever it finds there, over and over while the host writes).
 */
const everyShellFile = 'shell/*';

/** What the planted link points at; each must stay untouched by every host-side write. */
const linkKinds = ['outside file', 'startup file', 'dangling', 'directory'] as const;
type LinkKind = (typeof linkKinds)[number];

interface Fixture {
  project: ShellProject;
  outside: string;
  canary: string;
  startupFile: string;
}

function makeFixture(): Fixture {
  const project = makeShellProject();
  // Outside /tmp, so it is the real (read-only) file system inside the sandbox, not its private /tmp.
  const outside = mkdtempSync('/var/tmp/efferent-state-outside-');
  const canary = join(outside, 'canary');
  writeFileSync(canary, 'canary\n');
  const startupFile = join(project.home, '.bashrc');
  writeFileSync(startupFile, '# rc\n');
  return { project, outside, canary, startupFile };
}

function linkTarget(fixture: Fixture, kind: LinkKind): string {
  switch (kind) {
    case 'outside file':
      return fixture.canary;
    case 'startup file':
      return fixture.startupFile;
    case 'dangling':
      return join(fixture.outside, 'created-through-link');
    case 'directory':
      return fixture.outside;
  }
}

/** Every host-side write of session state a session makes. */
async function hostWrites(context: ToolUseContext, bash: ReturnType<typeof createBashTool>): Promise<void> {
  const todos = [{ content: 'Ship', status: 'in_progress', activeForm: 'Shipping' }];
  await callTool(TodoWriteTool, { todos }, context).catch(() => {});
  await persistText(context.run.sessionDir, persisted).catch(() => {});
  await callTool<ShellOutput>(bash, { command: 'echo next' }, context).catch(() => {});
}

function expectUntouched(fixture: Fixture): void {
  expect(readFileSync(fixture.canary, 'utf8')).toBe('canary\n');
  expect(readFileSync(fixture.startupFile, 'utf8')).toBe('# rc\n');
  expect(readdirSync(fixture.outside).sort()).toEqual(['canary']);
}

describe.skipIf(!availability.available)(
  `Sandboxed commands and efferent's session state${skipReason}`,
  () => {
    const bash = createBashTool({ sandbox: 'required', killGraceMs: 200 });
    let fixture: Fixture | undefined;
    afterEach(async () => {
      await fixture?.project.cleanup();
      if (fixture) rmSync(fixture.outside, { recursive: true, force: true });
      fixture = undefined;
    });

    // Generated: every session-state path x every link kind x (one call after another | a background
    // task racing the host's writes). The link never makes a host-side write land elsewhere.
    const variants = [...statePaths, everyShellFile].flatMap((path) =>
      linkKinds.flatMap((kind) =>
        (['sequential', 'racing'] as const).map((timing) => ({ path, kind, timing })),
      ),
    );
    it.each(variants)(
      '$path -> $kind ($timing): the host write stays in the session folder',
      async ({ path, kind, timing }) => {
        fixture = makeFixture();
        const { context } = fixture.project;
        await hostWrites(context, bash);
        const planted = join(context.run.sessionDir, path);
        const target = linkTarget(fixture, kind);
        const plant =
          path === everyShellFile
            ? `for f in '${dirname(planted)}'/*; do rm -f "$f"; ln -sfn '${target}' "$f"; done`
            : `mkdir -p '${dirname(planted)}'; rm -rf '${planted}'; ln -sfn '${target}' '${planted}'`;
        if (timing === 'sequential') {
          const { result } = await callTool<ShellOutput>(bash, { command: plant }, context);
          expect(result.data.exitCode).not.toBe(0);
          await hostWrites(context, bash);
        } else {
          const loop = `for i in $(seq 300); do ${plant}; done 2>/dev/null; true`;
          const { result } = await callTool<ShellOutput>(
            bash,
            { command: loop, run_in_background: true },
            context,
          );
          expect(result.data.backgroundTaskId).toBeDefined();
          for (let round = 0; round < 3; round++) {
            await hostWrites(context, bash);
            await delay(20);
          }
        }
        expectUntouched(fixture);
        // The state itself is still a plain folder efferent owns.
        expect(readdirSync(context.run.sessionDir)).toEqual(expect.arrayContaining(['todos', 'shell']));
      },
    );

    it('keeps a session folder inside the project read-only, parents included', async () => {
      fixture = makeFixture();
      const sessionDir = join(fixture.project.root, 'state', 'session');
      const context = { ...fixture.project.context, run: { ...fixture.project.context.run, sessionDir } };
      await hostWrites(context, bash);
      const swap = await callTool<ShellOutput>(
        bash,
        { command: `mv state state-old || rm -rf state/session/todos; ln -s '${fixture.outside}' state` },
        context,
      );
      expect(swap.result.data.exitCode).not.toBe(0);
      await hostWrites(context, bash);
      expectUntouched(fixture);
      // The rest of the project stays writable.
      const plain = await callTool<ShellOutput>(bash, { command: 'echo ok > other.txt' }, context);
      expect(plain.result.data.exitCode).toBe(0);
    });

    it('lets a command read its earlier persisted output but not change it', async () => {
      fixture = makeFixture();
      const { context } = fixture.project;
      const path = await persistText(context.run.sessionDir, persisted);
      const read = await callTool<ShellOutput>(bash, { command: `cat '${path}'` }, context);
      expect(read.result.data.stdout).toBe(persisted);
      const write = await callTool<ShellOutput>(bash, { command: `echo changed > '${path}'` }, context);
      expect(write.result.data.exitCode).not.toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(persisted);
    });
  },
);

describe('Host-side session writes never follow a link, sandbox or not', () => {
  let fixture: Fixture | undefined;
  afterEach(async () => {
    await fixture?.project.cleanup();
    if (fixture) rmSync(fixture.outside, { recursive: true, force: true });
    fixture = undefined;
  });
  // Generated: the link is planted directly (as an unsandboxed process could); every host write
  // must refuse or replace the link, never write through it.
  const variants = statePaths.flatMap((path) => linkKinds.map((kind) => ({ path, kind })));
  it.each(variants)('$path -> $kind', async ({ path, kind }) => {
    fixture = makeFixture();
    const { context } = fixture.project;
    const planted = join(context.run.sessionDir, path);
    mkdirSync(dirname(planted), { recursive: true });
    symlinkSync(linkTarget(fixture, kind), planted);
    await hostWrites(context, createBashTool({ sandbox: 'off' }));
    expectUntouched(fixture);
  });
});
