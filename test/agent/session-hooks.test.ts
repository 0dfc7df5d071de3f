import { chmod, readdir, readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

/** Hook `if` conditions, oversized hook output and background hooks through a real session and pipeline. */

let workspace: TempWorkspace | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

/** A session whose settings hold `settings`, with executable hook scripts written beside it. */
async function open(
  scripts: Record<string, string>,
  settings: (paths: Record<string, string>, dir: string) => unknown,
  permissionMode: 'default' | 'acceptEdits' = 'default',
): Promise<{ current: Session; dir: string }> {
  workspace = await createTempWorkspace({ files: { 'src/.keep': '' } });
  const paths: Record<string, string> = {};
  for (const [name, body] of Object.entries(scripts)) {
    paths[name] = await workspace.write(`hooks/${name}`, `#!/bin/sh\n${body}\n`);
    await chmod(paths[name], 0o755);
  }
  await workspace.write('.efferent/settings.json', JSON.stringify(settings(paths, workspace.dir)));
  session = await createSession({
    cwd: workspace.dir,
    home: workspace.dir,
    sessionDir: workspace.path('.session'),
    permissionMode,
  });
  return { current: session, dir: workspace.dir };
}

function isDeadOrZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z';
  } catch {
    return true;
  }
}

describe('hook `if` conditions in a session', () => {
  it('runs a Bash guard only when some subcommand matches its pattern', async () => {
    const { current, dir } = await open(
      {
        'no-push.sh': `cat > /dev/null; echo "$(date +%s%N)" >> "$CLAUDE_PROJECT_DIR/guard.log"; echo 'pushing is not allowed here' >&2; exit 2`,
      },
      (paths) => ({
        permissions: { allow: ['Bash(echo *)'] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: paths['no-push.sh'], if: 'Bash(git push *)' }],
            },
          ],
        },
      }),
    );
    const plain = await current.callTool('Bash', { command: 'echo hello && echo git push' });
    expect(plain.isError ?? false).toBe(false);
    expect(toolResultText(plain)).toContain('hello');
    expect(existsSync(join(dir, 'guard.log'))).toBe(false);

    for (const command of [
      'echo hi && git push origin main',
      'FOO=1 timeout 5 git push',
      'echo $(git push)',
    ]) {
      const blocked = await current.callTool('Bash', { command });
      expect(blocked.isError).toBe(true);
      expect(toolResultText(blocked)).toContain('pushing is not allowed here');
    }
    expect((await readFile(join(dir, 'guard.log'), 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('matches file tools by path with the same anchoring as rules', async () => {
    const { current, dir } = await open(
      { 'src-guard.sh': `cat > /dev/null; echo 'src/ is frozen' >&2; exit 2` },
      (paths) => ({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Write|Edit',
              hooks: [{ type: 'command', command: paths['src-guard.sh'], if: 'Edit(/src/**)' }],
            },
          ],
        },
      }),
      'acceptEdits',
    );
    const frozen = await current.callTool('Write', { file_path: join(dir, 'src/app.ts'), content: 'x' });
    expect(frozen.isError).toBe(true);
    expect(toolResultText(frozen)).toContain('src/ is frozen');
    expect(existsSync(join(dir, 'src/app.ts'))).toBe(false);
    // A relative path is made absolute before the condition sees it.
    const relative = await current.callTool('Write', { file_path: 'src/other.ts', content: 'x' });
    expect(relative.isError).toBe(true);
    const free = await current.callTool('Write', { file_path: join(dir, 'notes.md'), content: 'x' });
    expect(free.isError ?? false).toBe(false);
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('x');
  });
});

describe('oversized hook output in a session', () => {
  it('saves it under the session folder and gives the model a preview with the path', async () => {
    const { current, dir } = await open(
      {
        'chatty.sh': `cat > /dev/null; node -e 'console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: Array.from({length: 2000}, (_, i) => "note " + i).join("\\n")}}))'`,
      },
      (paths) => ({
        permissions: { allow: ['Bash(echo *)'] },
        hooks: {
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: paths['chatty.sh'] }] }],
        },
      }),
    );
    const result = await current.callTool('Bash', { command: 'echo ran' });
    const text = toolResultText(result);
    expect(text).toContain('ran');
    expect(text).toContain('note 0\nnote 1');
    expect(text).not.toContain('note 1999');
    const path = /saved at (\S+\.txt);/.exec(text)?.[1] ?? '';
    expect(path.startsWith(join(dir, '.session', 'hook-output'))).toBe(true);
    const saved = await readFile(path, 'utf8');
    expect(saved.split('\n')).toHaveLength(2000);
    expect(saved.endsWith('note 1999')).toBe(true);
    expect(await readdir(join(dir, '.session', 'hook-output'))).toHaveLength(1);
  });
});

describe('async hooks in a session', () => {
  it('do not hold up the call and do not outlive session.dispose()', async () => {
    const { current, dir } = await open(
      { 'slow.sh': `cat > /dev/null; sleep 30 & echo $! > "$CLAUDE_PROJECT_DIR/slow.pid"; wait` },
      (paths) => ({
        permissions: { allow: ['Bash(echo *)'] },
        hooks: {
          PostToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: paths['slow.sh'], async: true }] },
          ],
        },
      }),
    );
    const started = Date.now();
    const result = await current.callTool('Bash', { command: 'echo quick' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(toolResultText(result)).toContain('quick');
    expect(current.hooks.backgroundCount).toBe(1);
    const pidFile = join(dir, 'slow.pid');
    const deadline = Date.now() + 5_000;
    while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isDeadOrZombie(pid)).toBe(false);

    const disposing = Date.now();
    await current.dispose();
    session = undefined;
    expect(Date.now() - disposing).toBeLessThan(2_000);
    expect(current.hooks.backgroundCount).toBe(0);
    expect(isDeadOrZombie(pid)).toBe(true);
  });
});
