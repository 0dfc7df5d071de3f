import { chmod } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { type ToolUseBlock, toolResultText } from '../../src/core/index.ts';
import { type ExecutorEvent, runToolBatches, StreamingToolExecutor } from '../../src/executor/index.ts';
import { shellParseCount } from '../../src/shell/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

/**
 * A Bash call is parsed once: the sed preview, read-only and concurrency answers, the decision,
 * hook `if` conditions, the git-safety flag and the run all read the call prepared after validation.
 * Counted at the parser's entry, through a real session, real hooks and real bash.
 */

let workspace: TempWorkspace | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

/** A session with `echo` allowed, and optionally a guard hook that runs only for `git push`. */
async function open(options: { ifHook?: boolean; rewriteTo?: string } = {}): Promise<Session> {
  workspace = await createTempWorkspace({ files: { 'src/a.txt': 'a\n' } });
  const guard = await workspace.write(
    'hooks/guard.sh',
    `#!/bin/sh\ncat > /dev/null; echo ran >> "$CLAUDE_PROJECT_DIR/guard.log"; echo 'no pushing' >&2; exit 2\n`,
  );
  await chmod(guard, 0o755);
  const hooks: unknown[] = [];
  if (options.ifHook) {
    hooks.push({ matcher: 'Bash', hooks: [{ type: 'command', command: guard, if: 'Bash(git push *)' }] });
  }
  if (options.rewriteTo !== undefined) {
    const output = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: options.rewriteTo } },
    });
    const rewrite = await workspace.write(
      'hooks/rewrite.sh',
      `#!/bin/sh\ncat > /dev/null; echo '${output}'\n`,
    );
    await chmod(rewrite, 0o755);
    hooks.push({ matcher: 'Bash', hooks: [{ type: 'command', command: rewrite }] });
  }
  await workspace.write(
    '.efferent/settings.json',
    JSON.stringify({ permissions: { allow: ['Bash(echo *)'] }, hooks: { PreToolUse: hooks } }),
  );
  // The home the permission engine uses is the one the Bash tool sees, so both ask for one analysis.
  session = await createSession({
    cwd: workspace.dir,
    home: workspace.dir,
    env: { ...process.env, HOME: workspace.dir },
    sessionDir: workspace.path('.session'),
    trusted: true,
  });
  return session;
}

async function parsesOf<T>(run: () => Promise<T>): Promise<{ parses: number; value: T }> {
  const before = shellParseCount();
  const value = await run();
  return { parses: shellParseCount() - before, value };
}

const bash = (id: string, command: string): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name: 'Bash',
  input: { command },
});

describe('one parse per Bash call', () => {
  it('parses a read-only and a rule-allowed command once each, without hooks', async () => {
    const current = await open();
    for (const command of ['ls -la src', 'echo hello && echo world', 'cat src/a.txt | wc -l']) {
      const { parses, value } = await parsesOf(() => current.callTool('Bash', { command }));
      expect(value.isError ?? false, toolResultText(value)).toBe(false);
      expect(parses, command).toBe(1);
    }
  });

  it('parses once with an `if` hook, whether or not its condition holds', async () => {
    const current = await open({ ifHook: true });
    const allowed = await parsesOf(() => current.callTool('Bash', { command: 'echo hello' }));
    expect(toolResultText(allowed.value)).toContain('hello');
    expect(allowed.parses).toBe(1);
    expect(existsSync(join(workspace?.dir ?? '', 'guard.log'))).toBe(false);

    const blocked = await parsesOf(() => current.callTool('Bash', { command: 'echo hi && git push origin' }));
    expect(blocked.value.isError).toBe(true);
    expect(toolResultText(blocked.value)).toContain('no pushing');
    expect(blocked.parses).toBe(1);
  });

  it('parses once per call in a streamed turn, the executor’s scheduling included', async () => {
    const current = await open({ ifHook: true });
    const events: ExecutorEvent[] = [];
    const { parses } = await parsesOf(async () => {
      const executor = new StreamingToolExecutor({ runTool: current.runTool, context: current.context });
      executor.startToolUse('t1', 'Bash');
      executor.startToolUse('t2', 'Bash');
      executor.addToolUse(bash('t1', 'ls src'));
      executor.addToolUse(bash('t2', 'echo streamed'));
      executor.startToolUse('t3', 'Bash');
      executor.addToolUse(bash('t3', 'cat src/a.txt'));
      executor.endStream('tool_use');
      for await (const event of executor.events()) events.push(event);
    });
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.result.isError ?? false)).toEqual([false, false, false]);
    expect(parses).toBe(3);
  });

  it('parses once per call in a whole-message turn', async () => {
    const current = await open({ ifHook: true });
    const blocks = [bash('w1', 'ls'), bash('w2', 'echo whole'), bash('w3', 'wc -l src/a.txt')];
    const { parses, value } = await parsesOf(async () => {
      const seen: ExecutorEvent[] = [];
      for await (const event of runToolBatches(blocks, {
        runTool: current.runTool,
        context: current.context,
      }))
        seen.push(event);
      return seen.filter((event) => event.type === 'tool_result');
    });
    expect(
      value.map((event) => (event.type === 'tool_result' ? (event.result.isError ?? false) : true)),
    ).toEqual([false, false, false]);
    expect(parses).toBe(3);
  });

  it('prepares and decides a hook’s rewritten command again, so a rewrite cannot slip past the rules', async () => {
    const current = await open({ rewriteTo: 'touch created-by-rewrite' });
    const { parses, value } = await parsesOf(() => current.callTool('Bash', { command: 'echo harmless' }));
    // `echo harmless` is allowed by a rule; `touch …` is not, and nobody can approve it here.
    expect(value.isError).toBe(true);
    expect(toolResultText(value)).toContain('needs approval');
    expect(existsSync(join(workspace?.dir ?? '', 'created-by-rewrite'))).toBe(false);
    // Nothing asked about the model's command before the hook replaced it, so only the rewrite is parsed.
    expect(parses).toBe(1);
  });

  it('runs a rewritten command that the rules allow', async () => {
    const current = await open({ rewriteTo: 'echo rewritten' });
    const { value } = await parsesOf(() => current.callTool('Bash', { command: 'ls' }));
    expect(value.isError ?? false).toBe(false);
    expect(toolResultText(value)).toContain('rewritten');
  });
});
