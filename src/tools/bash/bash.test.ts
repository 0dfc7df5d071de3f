import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolUseContext, toolInputJsonSchema, toolResultText } from '../../core/index.ts';
import { backgroundTasksKey } from '../shared/process/background-tasks.ts';
import {
  callTool,
  delay,
  makeShellProject,
  processesMatching,
  type ShellProject,
  waitUntilGone,
} from '../shared/process/test-shell.ts';
import { BashTool, createBashTool, effectiveTimeout } from './bash.ts';
import { bashLimits } from './bash.prompt.ts';
import type { ShellOutput as BashOutput } from '../shared/process/shell-output.ts';

const bash = createBashTool({ sandbox: 'off', progressIntervalMs: 100, killGraceMs: 300 });
let project: ShellProject;
afterEach(async () => project?.cleanup());

async function run(input: Record<string, unknown>, tool = bash) {
  const { result, progress } = await callTool<BashOutput>(tool, input, project.context);
  const block = tool.mapResultToBlock(result.data, 'toolu_test');
  return { result, data: result.data, text: toolResultText(block), block, progress };
}

const onePixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Bash tool contract', () => {
  it('hides the internal sed field from the model schema and keeps the public ones', () => {
    const schema = toolInputJsonSchema(BashTool) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual(
      ['command', 'dangerouslyDisableSandbox', 'description', 'run_in_background', 'timeout'].sort(),
    );
    expect(schema.required).toEqual(['command']);
  });

  it('declares its flags', async () => {
    expect(BashTool.name).toBe('Bash');
    expect(BashTool.maxResultSizeChars).toBe(30_000);
    expect(BashTool.interruptBehavior()).toBe('block');
    expect(await BashTool.prompt({ tools: [], isNonInteractive: true })).toContain('run_in_background');
    expect(BashTool.permissionTarget({ command: 'ls' }, createToolUseContext({ cwd: '/' }))).toEqual({
      kind: 'command',
      command: 'ls',
      shell: 'bash',
    });
    expect(BashTool.inputSchema.safeParse({ command: 'ls', bogus: 1 }).success).toBe(false);
    expect(BashTool.inputSchema.safeParse({ command: '' }).success).toBe(false);
  });

  it('is read-only and concurrency-safe only for commands the analyser proves read-only', async () => {
    await BashTool.validateInput({ command: 'true' }, createToolUseContext({ cwd: '/' }));
    for (const command of ['ls -la', 'cat a.txt | grep x', 'git status']) {
      expect(BashTool.isReadOnly({ command }), command).toBe(true);
      expect(BashTool.isConcurrencySafe({ command }), command).toBe(true);
      expect(BashTool.cancelsSiblingsOnError({ command }), command).toBe(false);
    }
    for (const command of [
      'rm -rf build',
      'echo x > out.txt',
      'ls; touch x',
      'bash -c "rm x"',
      "sed -i 's/a/b/' f",
    ]) {
      expect(BashTool.isReadOnly({ command }), command).toBe(false);
      expect(BashTool.isConcurrencySafe({ command }), command).toBe(false);
      expect(BashTool.cancelsSiblingsOnError({ command }), command).toBe(true);
    }
    const approvedSed = { command: "sed -n '1p' f", _simulatedSedEdit: { filePath: '/f', newContent: '' } };
    expect(BashTool.isReadOnly(approvedSed)).toBe(false);
  });

  it('clamps the timeout to 600,000 ms and defaults to 120,000', () => {
    expect(effectiveTimeout(undefined)).toBe(120_000);
    expect(effectiveTimeout(5_000_000)).toBe(600_000);
    expect(effectiveTimeout(-1)).toBe(120_000);
    // Claude Code's reading of the variables: bad values ignored, the ceiling never below the default.
    const limits = bashLimits({ BASH_DEFAULT_TIMEOUT_MS: '900000', BASH_MAX_TIMEOUT_MS: '1000' });
    expect(limits).toEqual({ defaultTimeoutMs: 900_000, maxTimeoutMs: 900_000 });
    expect(effectiveTimeout(undefined, limits)).toBe(900_000);
    expect(bashLimits({ BASH_DEFAULT_TIMEOUT_MS: '12abc', BASH_MAX_OUTPUT_LENGTH: '999999' })).toEqual({
      defaultTimeoutMs: 120_000,
      maxTimeoutMs: 600_000,
      maxOutputLength: 150_000,
    });
  });
});

describe('Bash runs commands', () => {
  it('returns stdout and stderr separately, in the project directory, with the run environment', async () => {
    project = makeShellProject();
    project.context.run.env = { ...project.context.run.env, GREETING: 'hello' };
    const { data, text, block } = await run({ command: 'echo "$GREETING from $(pwd)"; echo oops >&2' });
    expect(data.stdout).toBe(`hello from ${project.root}\n`);
    expect(data.stderr).toBe('oops\n');
    expect(data.exitCode).toBe(0);
    expect(text).toBe(`hello from ${project.root}\noops`);
    expect(block.isError).toBeUndefined();
  });

  it('reports a failing exit code as an error', async () => {
    project = makeShellProject();
    const { data, text, block } = await run({ command: 'echo partial; exit 3' });
    expect(data.exitCode).toBe(3);
    expect(block.isError).toBe(true);
    expect(text).toBe('partial\nExit code 3');
  });

  it('treats exit 1 of grep, diff and test as an answer, not a failure', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'a.txt'), 'one\n');
    writeFileSync(join(project.root, 'b.txt'), 'two\n');
    const grep = await run({ command: 'grep missing a.txt' });
    expect(grep.data.exitCode).toBe(1);
    expect(grep.block.isError).toBeUndefined();
    expect(grep.text).toContain('No matches found');
    const diff = await run({ command: 'cat a.txt | diff a.txt b.txt' });
    expect(diff.block.isError).toBeUndefined();
    expect(diff.data.returnCodeInterpretation).toBe('Files differ');
    const test = await run({ command: '[ -f nothing ]' });
    expect(test.block.isError).toBeUndefined();
    // The last command decides: grep's "no match" earlier in the line does not excuse a later failure.
    const failing = await run({ command: 'grep missing a.txt; false' });
    expect(failing.block.isError).toBe(true);
    // Exit 2 from grep is a real error.
    const broken = await run({ command: 'grep x no-such-file' });
    expect(broken.data.exitCode).toBe(2);
    expect(broken.block.isError).toBe(true);
  });

  it('keeps a cd inside the project for later calls, and resets one that leaves it', async () => {
    project = makeShellProject();
    mkdirSync(join(project.root, 'sub'));
    const inside = await run({ command: 'cd sub && pwd' });
    expect(inside.result.contextModifier).toBeDefined();
    project.context = inside.result.contextModifier?.(project.context) ?? project.context;
    expect(project.context.run.cwd).toBe(join(project.root, 'sub'));
    const next = await run({ command: 'pwd' });
    expect(next.data.stdout.trim()).toBe(join(project.root, 'sub'));

    const outside = await run({ command: 'cd / && pwd' });
    expect(outside.data.cwdNote).toBe(`Shell cwd was reset to ${project.root}`);
    expect(outside.text).toContain('Shell cwd was reset');
    project.context = outside.result.contextModifier?.(project.context) ?? project.context;
    expect(project.context.run.cwd).toBe(project.root);
  });

  it('does not count a sibling directory sharing the root prefix as inside', async () => {
    project = makeShellProject();
    const sibling = `${project.root}_evil`;
    mkdirSync(sibling);
    const { data } = await run({ command: `cd ${sibling}` });
    expect(data.cwdNote).toContain('reset');
  });

  it('does not keep environment changes between calls', async () => {
    project = makeShellProject();
    await run({ command: 'export EFFERENT_TEST_VAR=1' });
    const { data } = await run({ command: 'echo "[$EFFERENT_TEST_VAR]"' });
    expect(data.stdout).toBe('[]\n');
  });

  it('saves large output to a file and shows a preview with its path', async () => {
    project = makeShellProject();
    const { data, text } = await run({ command: 'seq 1 20000' });
    expect(data.outputPath).toBeDefined();
    expect(readFileSync(data.outputPath as string, 'utf8').split('\n')).toHaveLength(20001);
    expect(data.stdout.length).toBe(30_000);
    expect(text).toContain('<persisted-output>');
    expect(text).toContain(data.outputPath);
    expect(text.length).toBeLessThan(5_000);
  });

  it('never waits for an editor or a credential prompt (git commit without -m)', async () => {
    project = makeShellProject();
    project.context.run.env = { ...project.context.run.env, EDITOR: 'vim', VISUAL: 'vim', GIT_EDITOR: 'vim' };
    const setup =
      'git init -q . && git config user.email t@example.com && git config user.name T && echo x > f && git add f';
    const started = performance.now();
    const { data } = await run({ command: `${setup} && git commit`, timeout: 20_000 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(data.interrupted).toBe(false);
    expect(`${data.stdout}${data.stderr}`).toMatch(/empty commit message/i);
    expect(`${data.stdout}${data.stderr}`).not.toMatch(/\x1b\[/);
    const { data: env } = await run({ command: 'echo "$GIT_EDITOR $EDITOR $VISUAL $GIT_TERMINAL_PROMPT"' });
    expect(env.stdout).toBe('true true true 0\n');
  });

  it('keeps the stderr file it names when only stderr was too large', async () => {
    project = makeShellProject();
    const { data, text } = await run({ command: 'echo small; seq 1 20000 >&2' });
    expect(data.stdout).toBe('small\n');
    const named = /full text in (\S+)\]/.exec(text)?.[1];
    expect(named).toBeDefined();
    expect(data.stderrPath).toBe(named);
    expect(readFileSync(named as string, 'utf8').split('\n')).toHaveLength(20001);
  });

  it('removes the output files of small results', async () => {
    project = makeShellProject();
    await run({ command: 'echo small' });
    const shellDir = join(project.context.run.sessionDir, 'shell');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(shellDir)).toEqual([]);
  });

  it('returns image output as an image block', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'dot.png'), onePixelPng);
    const { data, block } = await run({ command: 'cat dot.png' });
    expect(data.isImage).toBe(true);
    expect(block.content).toEqual([
      {
        type: 'image',
        source: { type: 'base64', mediaType: 'image/png', data: onePixelPng.toString('base64') },
      },
    ]);
  });

  it('reports progress with the output tail while a command runs', async () => {
    project = makeShellProject();
    const { progress } = await run({ command: 'for i in 1 2 3 4; do echo line$i; sleep 0.15; done' });
    expect(progress.length).toBeGreaterThan(0);
    const last = progress.at(-1) as { type: string; output: string };
    expect(last.type).toBe('shell_progress');
    expect(last.output).toMatch(/line\d/);
  });

  it('kills a command whose output passes the size cap', async () => {
    project = makeShellProject();
    const capped = createBashTool({ sandbox: 'off', maxOutputBytes: 50_000, killGraceMs: 200 });
    const { data, text } = await run({ command: 'while :; do echo 0123456789abcdef; done' }, capped);
    expect(data.interrupted).toBe(true);
    expect(text).toContain('output passed 50,000 bytes');
    expect(data.stdout.length).toBeLessThan(30_001);
  });
});

describe('Bash distrusts the files a command can reach', () => {
  it('ignores a cwd file or output file the command replaced with a link', async () => {
    project = makeShellProject();
    const secret = join(project.home, 'secret.txt');
    writeFileSync(secret, 'do not read me\n');
    const swapCwd = await run({
      command: 'rm "$__efferent_cwd_file"; ln -s /dev/zero "$__efferent_cwd_file"; cd /',
    });
    expect(swapCwd.result.contextModifier).toBeUndefined();
    const swapOut = await run({
      command: `echo visible; out=$(readlink /proc/$$/fd/1); rm "$out"; ln -s ${secret} "$out"`,
    });
    expect(swapOut.data.stdout).not.toContain('do not read me');
    expect(readFileSync(secret, 'utf8')).toBe('do not read me\n');
  });
});

describe('Bash stops what it starts', () => {
  it('kills the whole process group, grandchildren included, on abort', async () => {
    project = makeShellProject();
    const marker = `${100 + Math.floor(Math.random() * 800)}.${process.pid}`;
    const pending = run({ command: `sleep ${marker} & sleep ${marker}; echo never` });
    await delay(300);
    expect(processesMatching(`sleep ${marker}`).length).toBe(2);
    project.context.run.abortController.abort();
    const { data, block, text } = await pending;
    expect(data.interrupted).toBe(true);
    expect(block.isError).toBe(true);
    expect(text).toContain('aborted');
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('kills a leftover background job when the command itself ends', async () => {
    project = makeShellProject();
    const marker = `${100 + Math.floor(Math.random() * 800)}.${process.pid}1`;
    await run({ command: `sleep ${marker} & echo started` });
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });

  it('kills a command starting with sleep at its timeout', async () => {
    project = makeShellProject();
    const started = Date.now();
    const { data, text } = await run({ command: 'sleep 30', timeout: 300 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(data.interrupted).toBe(true);
    expect(data.backgroundTaskId).toBeUndefined();
    expect(text).toContain('timed out after 300 ms');
  });

  it('kills a git command at its timeout instead of moving it to the background', async () => {
    project = makeShellProject();
    const { data } = await run({ command: 'echo git; sleep 30', timeout: 300 });
    expect(data.interrupted).toBe(true);
    expect(data.backgroundTaskId).toBeUndefined();
  });
});

describe('Bash background tasks', () => {
  it('moves a command past its timeout to the background, where it finishes', async () => {
    project = makeShellProject();
    const { data, text } = await run({ command: 'echo first; sleep 0.6; echo second', timeout: 200 });
    expect(data.backgroundTaskId).toMatch(/^b[0-9a-z]{7}$/);
    expect(data.stdout).toBe('first\n');
    expect(text).toContain('moved to the background');
    const tasks = project.context.run.resources?.get(backgroundTasksKey);
    const id = data.backgroundTaskId as string;
    expect(await tasks?.waitFor(id, 5_000)).toBe('finished');
    expect(tasks?.get(id)).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(readFileSync(tasks?.get(id)?.stdoutPath as string, 'utf8')).toBe('first\nsecond\n');
  });

  it('starts run_in_background commands at once and returns the id and output path', async () => {
    project = makeShellProject();
    const started = Date.now();
    const { data, text } = await run({ command: 'sleep 5; echo done', run_in_background: true });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(text).toContain(`ID: ${data.backgroundTaskId}`);
    expect(text).toContain('.stdout');
    const tasks = project.context.run.resources?.get(backgroundTasksKey);
    expect(tasks?.list().map((task) => task.status)).toEqual(['running']);
  });

  it('stops running background tasks when the session is disposed', async () => {
    project = makeShellProject();
    const marker = `${100 + Math.floor(Math.random() * 800)}.${process.pid}2`;
    await run({ command: `sleep ${marker}`, run_in_background: true });
    await delay(150);
    expect(processesMatching(`sleep ${marker}`).length).toBe(1);
    await project.context.run.resources?.dispose();
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });
});

describe('sed edit preview', () => {
  it('previews the edit without touching the file, then writes exactly the approved text', async () => {
    project = makeShellProject();
    const file = join(project.root, 'config.txt');
    writeFileSync(file, 'name=old\nmode=old\n');
    const input = bash.inputSchema.parse({ command: "sed -i 's/old/new/' config.txt" });
    const permission = await bash.checkPermissions(input, project.context);
    expect(permission.behavior).toBe('ask');
    if (permission.behavior !== 'ask') return;
    expect(readFileSync(file, 'utf8')).toBe('name=old\nmode=old\n');
    expect(permission.preview).toContain('-name=old');
    expect(permission.preview).toContain('+name=new');
    expect(permission.updatedInput?.['_simulatedSedEdit']).toEqual({
      filePath: file,
      newContent: 'name=new\nmode=new\n',
    });
    const { data } = await run(permission.updatedInput as Record<string, unknown>);
    expect(data.exitCode).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('name=new\nmode=new\n');
    expect(project.context.run.readFileState.get(file)?.content).toBe('name=new\nmode=new\n');
  });

  it('leaves sed -i to the engine in acceptEdits, where edits are approved in advance', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'config.txt'), 'name=old\n');
    const input = bash.inputSchema.parse({ command: "sed -i 's/old/new/' config.txt" });
    project.context.run.permissionMode = 'acceptEdits';
    expect((await bash.checkPermissions(input, project.context)).behavior).toBe('passthrough');
    project.context.run.permissionMode = 'default';
    expect((await bash.checkPermissions(input, project.context)).behavior).toBe('ask');
  });

  it('refuses to write when the file changed after approval', async () => {
    project = makeShellProject();
    const file = join(project.root, 'config.txt');
    writeFileSync(file, 'a=old\n');
    const input = bash.inputSchema.parse({ command: "sed -i -e 's/old/new/g' config.txt" });
    const permission = await bash.checkPermissions(input, project.context);
    if (permission.behavior !== 'ask') throw new Error('expected ask');
    writeFileSync(file, 'a=old\nb=added by someone else\n');
    await expect(run(permission.updatedInput as Record<string, unknown>)).rejects.toThrow(
      /changed after the sed edit was approved/,
    );
    expect(readFileSync(file, 'utf8')).toBe('a=old\nb=added by someone else\n');
  });

  it('refuses an approved edit that does not belong to the command', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'x.txt'), 'x\n');
    const forged = {
      command: "sed -i 's/x/y/' x.txt",
      _simulatedSedEdit: { filePath: join(project.root, 'other.txt'), newContent: 'pwned' },
    };
    await expect(run(forged)).rejects.toThrow(/does not belong/);
    expect(existsSync(join(project.root, 'other.txt'))).toBe(false);
  });

  it('has no objection to commands it cannot preview', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'x.txt'), 'x\n');
    for (const command of [
      'ls',
      "sed -i.bak 's/x/y/' x.txt",
      "sed 's/x/y/' x.txt",
      "sed -i 's/x/y/' x.txt > out",
    ]) {
      const permission = await bash.checkPermissions(bash.inputSchema.parse({ command }), project.context);
      expect(permission.behavior, command).toBe('passthrough');
    }
  });
});

describe('Bash without a usable sandbox', () => {
  const unavailable = () => ({ available: false as const, reason: 'bwrap is missing in this test' });

  it('runs unsandboxed with a notice shown once per session', async () => {
    project = makeShellProject();
    const tool = createBashTool({ sandboxProbe: unavailable });
    const first = await run({ command: 'echo one' }, tool);
    expect(first.text).toContain('no OS sandbox (bwrap is missing in this test)');
    const second = await run({ command: 'echo two' }, tool);
    expect(second.text).toBe('two');
    expect(await tool.prompt({ tools: [], isNonInteractive: true })).not.toContain('OS sandbox.');
  });

  it('refuses to run at all when the sandbox is required', async () => {
    project = makeShellProject();
    const tool = createBashTool({ sandbox: 'required', sandboxProbe: unavailable });
    await expect(run({ command: `touch ${join(project.root, 'ran')}` }, tool)).rejects.toThrow(
      /must run in the OS sandbox/,
    );
    expect(existsSync(join(project.root, 'ran'))).toBe(false);
  });

  it('does not ask about dangerouslyDisableSandbox when there is no sandbox to leave', async () => {
    project = makeShellProject();
    const tool = createBashTool({ sandboxProbe: unavailable });
    const input = tool.inputSchema.parse({ command: 'ls', dangerouslyDisableSandbox: true });
    expect((await tool.checkPermissions(input, project.context)).behavior).toBe('passthrough');
  });
});
