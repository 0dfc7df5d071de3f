import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { type ToolUseContext, toolResultText } from '../../src/core/index.ts';

/*
 * Real Bash calls through a session (no one answers asks, so an ask never runs): where bash really
 * is after `cd` is where the engine judges the next command from, CDPATH never redirects a `cd`,
 * and link tricks that reach outside the project never run.
 */

const secret = 'OUTSIDE-SECRET-7f3a';
let root: string;
let project: string;
let outside: string;
let session: Session | undefined;
/** The context as the executor carries it from call to call (context modifiers applied). */
let context: ToolUseContext | undefined;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-bash-paths-')));
  project = join(root, 'project');
  outside = join(root, 'outside');
  await mkdir(join(project, 'sub', 'deep'), { recursive: true });
  await mkdir(join(outside, 'target'), { recursive: true });
  await mkdir(join(root, 'home'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), `${secret}\n`);
  await writeFile(join(outside, 'target', 'secret.txt'), `${secret}\n`);
  await writeFile(join(project, 'sub', 'x.txt'), 'sub x\n');
  await writeFile(join(project, 'sub', 'deep', 'x.txt'), 'deep x\n');
  // Committed in the "repository": a link into the project, one out of it, and a tree hiding one.
  await symlink('sub/deep', join(project, 'inner'));
  await symlink(outside, join(project, 'out'));
  await mkdir(join(project, 'tree'));
  await symlink(outside, join(project, 'tree', 'escape'));
  await writeFile(join(project, 'tree', 'a.txt'), 'a\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await session?.dispose();
  session = undefined;
});

async function open(env: Record<string, string> = {}): Promise<Session> {
  session = await createSession({
    cwd: project,
    home: join(root, 'home'),
    env: { ...process.env, HOME: join(root, 'home'), ...env },
    trusted: true,
  });
  context = session.context;
  return session;
}

async function bash(command: string): Promise<{ text: string; isError: boolean }> {
  if (!session || !context) throw new Error('no session');
  const block = {
    type: 'tool_use' as const,
    id: `toolu_${Math.random().toString(36).slice(2)}`,
    name: 'Bash',
    input: { command },
  };
  for await (const event of session.runTool(block, context)) {
    if (event.type !== 'result') continue;
    if (event.contextModifier) context = event.contextModifier(context);
    return { text: toolResultText(event.result), isError: event.result.isError === true };
  }
  throw new Error('no result');
}

describe('Bash: paths resolve where bash really is', () => {
  it('clears CDPATH and starts with PWD set to the physical directory', async () => {
    await open({ CDPATH: outside, PWD: join(project, 'inner') });
    const env = await bash('echo "cdpath=[$CDPATH] pwd=[$PWD] logical=[$(pwd -L)]"');
    expect(env.isError, env.text).toBe(false);
    expect(env.text).toContain('cdpath=[]');
    expect(env.text).toContain(`pwd=[${project}]`);
    expect(env.text).toContain(`logical=[${project}]`);
    // With CDPATH gone, `cd target` looks in the project only: it fails instead of going outside.
    const cd = await bash('cd target && cat secret.txt');
    expect(cd.text).not.toContain(secret);
    expect(context?.run.cwd).toBe(project);
  });

  it('tracks the physical directory after cd through a link inside the project', async () => {
    await open();
    const moved = await bash('cd inner && pwd -P');
    expect(moved.isError, moved.text).toBe(false);
    expect(moved.text).toContain(join(project, 'sub', 'deep'));
    expect(context?.run.cwd, moved.text).toBe(join(project, 'sub', 'deep'));
    // `..` now means sub (the physical parent), and the engine judges it so.
    const read = await bash('cat ../x.txt');
    expect(read.isError, read.text).toBe(false);
    expect(read.text).toContain('sub x');
  });

  it.each([
    'cat out/../outside/secret.txt',
    'cd out && cat secret.txt',
    'cd -P out && cat secret.txt',
    'cd out/.. && cat outside/secret.txt',
    'grep -R OUTSIDE tree',
    'rg -L OUTSIDE tree',
    'diff -r tree sub',
    'find -L tree -name secret.txt',
  ])('never runs %s', async (command) => {
    await open();
    const result = await bash(command);
    expect(result.isError, result.text).toBe(true);
    expect(result.text).not.toContain(secret);
    expect(context?.run.cwd).toBe(project);
  });

  it('keeps non-following recursive reads of the same tree allowed', async () => {
    await open();
    const result = await bash('grep -r a tree; ls -R tree');
    expect(result.isError, result.text).toBe(false);
    expect(result.text).not.toContain(secret);
  });
});
