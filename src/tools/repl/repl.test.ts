import { afterEach, describe, expect, it } from 'vitest';
import { toolInputJsonSchema, toolResultText } from '../../core/index.ts';
import {
  callTool,
  makeShellProject,
  processesMatching,
  type ShellProject,
  waitUntilGone,
} from '../shared/process/test-shell.ts';
import { ReplTool } from './repl.ts';
import type { ReplEvaluation } from './repl-session.ts';

let project: ShellProject;
afterEach(async () => project?.cleanup());

async function evaluate(code: string, timeout?: number) {
  const input = timeout === undefined ? { code } : { code, timeout };
  const { result } = await callTool<ReplEvaluation>(ReplTool, input, project.context);
  const block = ReplTool.mapResultToBlock(result.data, 'toolu_test');
  return { data: result.data, text: toolResultText(block), block };
}

describe('REPL', () => {
  it('declares a schema with code and timeout and is never read-only', () => {
    const schema = toolInputJsonSchema(ReplTool) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual(['code', 'timeout']);
    expect(schema.required).toEqual(['code']);
    expect(ReplTool.isReadOnly({ code: '1' })).toBe(false);
    expect(ReplTool.isConcurrencySafe({ code: '1' })).toBe(false);
  });

  it('asks in every mode with the code as preview; only a person or an explicit rule may approve', async () => {
    project = makeShellProject();
    for (const mode of ['default', 'acceptEdits', 'auto', 'bypassPermissions', 'dontAsk', 'plan'] as const) {
      project.context.run.permissionMode = mode;
      expect(await ReplTool.checkPermissions({ code: 'process.exit()' }, project.context)).toMatchObject({
        behavior: 'ask',
        preview: 'process.exit()',
        classifierApprovable: false,
        ruleApprovable: true,
      });
    }
  });

  it('keeps variables, functions and awaited values across calls', async () => {
    project = makeShellProject();
    expect((await evaluate('const base = 40; function add(a) { return a + base }')).text).toBe('(no output)');
    expect((await evaluate('add(2)')).data.value).toBe('42');
    expect(
      (await evaluate('const later = await new Promise((r) => setTimeout(() => r(add(1)), 20)); later')).data
        .value,
    ).toBe('41');
    expect((await evaluate('later * 2')).data.value).toBe('82');
  });

  it('captures console output and reports thrown errors as error results', async () => {
    project = makeShellProject();
    const printed = await evaluate('console.log("hello", { a: 1 }); console.error("careful"); 7');
    expect(printed.text).toBe('hello { a: 1 }\ncareful\n7');
    const thrown = await evaluate('throw new TypeError("bad input")');
    expect(thrown.block.isError).toBe(true);
    expect(thrown.text).toContain('TypeError: bad input');
    const rejected = await evaluate('await Promise.reject(new Error("async failure"))');
    expect(rejected.text).toContain('async failure');
    expect((await evaluate('1 + 1')).data.value).toBe('2');
  });

  it('runs in the working directory with require available', async () => {
    project = makeShellProject();
    const { data } = await evaluate("require('node:path').basename(process.cwd())");
    expect(data.value).toBe("'project'");
  });

  it('stops an infinite loop at the timeout and keeps its state', async () => {
    project = makeShellProject();
    await evaluate('let kept = "still here"');
    const started = Date.now();
    const loop = await evaluate('while (true) {}', 300);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(loop.data.stopped).toBe('timeout');
    expect(loop.block.isError).toBe(true);
    expect((await evaluate('kept')).data.value).toBe("'still here'");
  });

  it('restarts with a clear note when a call cannot be interrupted', async () => {
    project = makeShellProject();
    await evaluate('let lost = 1');
    const hung = await evaluate('await new Promise(() => {})', 200);
    expect(hung.data.stopped).toBe('timeout');
    // A pending await cannot be interrupted inside the context, so the process is replaced.
    expect(hung.text).toContain('restarted');
    expect((await evaluate('typeof lost')).data.value).toBe("'undefined'");
    expect((await evaluate('6 * 7')).data.value).toBe('42');
  });

  it('limits captured output', async () => {
    project = makeShellProject();
    const { data, text } = await evaluate('for (let i = 0; i < 10000; i++) console.log("0123456789")');
    expect(data.output.length).toBe(30_000);
    expect(data.outputTruncated).toBe(true);
    expect(text).toContain('output cut');
  });

  it('ends its process when the session is disposed', async () => {
    project = makeShellProject();
    const { data } = await evaluate('process.pid');
    const pid = Number(data.value);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await project.context.run.resources?.dispose();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let waited = 0; waited < 2_000 && alive(); waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive()).toBe(false);
  });

  it('ends the processes its code started when the session is disposed or a call is cut off', async () => {
    project = makeShellProject();
    const marker = `${200 + Math.floor(Math.random() * 700)}.${process.pid}7`;
    const start = `require('node:child_process').spawn('sleep', ['${marker}'], { stdio: 'ignore' }).pid`;
    await evaluate(start);
    expect(processesMatching(`sleep ${marker}`)).toHaveLength(1);
    await project.context.run.resources?.dispose();
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);

    await project.cleanup();
    project = makeShellProject();
    await evaluate(start);
    const hung = await evaluate('await new Promise(() => {})', 200);
    expect(hung.text).toContain('restarted');
    expect(await waitUntilGone(`sleep ${marker}`)).toEqual([]);
  });
});
