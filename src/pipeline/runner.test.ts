import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  type PermissionRequest,
  type PermissionResolver,
  recordCheckedPath,
  takeCheckedPath,
} from '../core/index.ts';
import { createResultBudget } from '../budget/index.ts';
import { createHookRunner } from '../hooks/index.ts';
import { createCapturingTelemetry } from '../telemetry/index.ts';
import { createToolRunner } from './runner.ts';
import {
  collect,
  contextIn,
  echoTool,
  failingTool,
  onlyResult,
  resultText,
  tempDir,
  toolUse,
  waitingTool,
} from '../../test/pipeline/fixtures.ts';
import { createToolNameResolver } from './tool-name-resolver.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function dir(): string {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  return temp.path;
}
function script(folder: string, name: string, body: string): string {
  const path = join(folder, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}
const allowEcho = createToolNameResolver({ allow: ['Echo', 'Fail', 'Wait', 'Big'] });

describe('createToolRunner', () => {
  it('forgets the path a decision judged once the call ends, also when the tool never took it', async () => {
    const context = contextIn(dir());
    const judgeThenDeny: PermissionResolver = async (request) => {
      recordCheckedPath(request.context.run, request.toolUseId ?? '', '/judged/path');
      return { behavior: 'deny', message: 'no', trace: [] };
    };
    const run = createToolRunner({ tools: [echoTool()], resolvePermission: judgeThenDeny });
    const result = onlyResult(await collect(run, toolUse('Echo', { text: 'hi' }), context));
    expect(result.result.isError).toBe(true);
    expect(takeCheckedPath(context.run, 'toolu_1')).toBeUndefined();
  });

  it('runs an allowed call: progress first, then exactly one result', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const run = createToolRunner({ tools: [echoTool(calls)], resolvePermission: allowEcho });
    const events = await collect(run, toolUse('Echo', { text: 'hi', times: 2 }), contextIn(dir()));
    expect(events[0]).toEqual({ type: 'progress', toolUseId: 'toolu_1', data: { step: 'echoing' } });
    const result = onlyResult(events);
    expect(result.result).toEqual({ type: 'tool_result', toolUseId: 'toolu_1', content: 'hihi' });
    expect(result.errorClass).toBeUndefined();
    expect(calls).toEqual([{ text: 'hi', times: 2 }]);
  });

  it('resolves aliases, also through allTools, and reports unknown tools with close names', async () => {
    const renamed = buildTool({
      name: 'Echo',
      aliases: ['Parrot'],
      inputSchema: z.object({ text: z.string() }),
      prompt: 'p',
      call: async () => ({ data: '' }),
    });
    const run = createToolRunner({ tools: [echoTool()], allTools: [renamed], resolvePermission: allowEcho });
    const context = contextIn(dir());
    expect(resultText(onlyResult(await collect(run, toolUse('Say', { text: 'x' }), context)))).toBe('x');
    expect(resultText(onlyResult(await collect(run, toolUse('Parrot', { text: 'y' }), context)))).toBe('y');
    const unknown = onlyResult(await collect(run, toolUse('Ecko', { text: 'x' }), context));
    expect(unknown.result).toEqual({
      type: 'tool_result',
      toolUseId: 'toolu_1',
      content: 'No such tool available: Ecko. Did you mean: Echo?',
      isError: true,
    });
    expect(unknown.errorClass).toBe('efferent:tool_not_found');
  });

  it('does not start a call when the context was aborted first', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const run = createToolRunner({ tools: [echoTool(calls)], resolvePermission: allowEcho });
    const context = contextIn(dir());
    context.run.abortController.abort();
    const result = onlyResult(await collect(run, toolUse('Echo', { text: 'x' }), context));
    expect(result.result.isError).toBe(true);
    expect(result.errorClass).toBe('efferent:aborted');
    expect(calls).toEqual([]);
  });

  it('interrupts a running call and tells PostToolUseFailure hooks', async () => {
    const failures: unknown[] = [];
    const context = contextIn(dir());
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUseFailure',
          callback: (input) => {
            failures.push(input['is_interrupt']);
            return undefined;
          },
        },
      ],
    });
    const run = createToolRunner({
      tools: [waitingTool(() => context.run.abortController.abort())],
      resolvePermission: allowEcho,
      hooks,
    });
    const events = await collect(run, toolUse('Wait', { ms: 10_000 }), context);
    expect(events.map((event) => event.type)).toEqual(['progress', 'result']);
    expect(resultText(onlyResult(events))).toMatch(/interrupted/);
    expect(failures).toEqual([true]);
  });

  it('words validation errors for the model and never calls the tool', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const run = createToolRunner({ tools: [echoTool(calls)], resolvePermission: allowEcho });
    const result = onlyResult(await collect(run, toolUse('Echo', { times: -1 }), contextIn(dir())));
    expect(resultText(result)).toBe(
      '<tool_use_error>InputValidationError: Echo failed due to the following issues:\nThe required parameter `text` is missing (expected string).\nThe parameter `times` is invalid: Too small: expected number to be >0.</tool_use_error>',
    );
    const semantic = onlyResult(await collect(run, toolUse('Echo', { text: 'forbidden' }), contextIn(dir())));
    expect(resultText(semantic)).toBe(
      '<tool_use_error>The text "forbidden" is not allowed; pick other text.</tool_use_error>',
    );
    expect(calls).toEqual([]);
  });

  it('adds the ToolSearch hint for a deferred tool whose schema was not loaded', async () => {
    const deferred = buildTool({
      name: 'CronCreate',
      shouldDefer: true,
      inputSchema: z.object({ cron: z.string() }),
      prompt: 'c',
      call: async () => ({ data: '' }),
    });
    const loaded = new Set<string>();
    const run = createToolRunner({
      tools: [deferred],
      resolvePermission: allowEcho,
      deferred: { isLoaded: (name) => loaded.has(name) },
    });
    const before = resultText(
      onlyResult(await collect(run, toolUse('CronCreate', { cron: 5 }), contextIn(dir()))),
    );
    expect(before).toContain('select:CronCreate');
    loaded.add('CronCreate');
    const after = resultText(
      onlyResult(await collect(run, toolUse('CronCreate', { cron: 5 }), contextIn(dir()))),
    );
    expect(after).not.toContain('select:CronCreate');
  });

  it('refuses a session-deferred tool that was never loaded, with the select: hint, even for valid input', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const loaded = new Set<string>();
    const run = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: allowEcho,
      deferred: { isDeferred: (name) => name === 'Echo', isLoaded: (name) => loaded.has(name) },
    });
    const before = resultText(
      onlyResult(await collect(run, toolUse('Echo', { text: 'hi' }), contextIn(dir()))),
    );
    expect(before).toBe(
      '<tool_use_error>Echo is a deferred tool and its schema has not been loaded yet, so it cannot be called. Call ToolSearch with query "select:Echo" to load it, then call Echo again.</tool_use_error>',
    );
    expect(calls).toEqual([]);
    loaded.add('Echo');
    await collect(run, toolUse('Echo', { text: 'hi' }), contextIn(dir()));
    expect(calls).toHaveLength(1);
  });

  it('strips internal fields from the model, keeps them from a permission decision, and never mutates the block', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const permissionInputs: Array<Record<string, unknown>> = [];
    let approve = false;
    const resolver: PermissionResolver = async (request: PermissionRequest) => {
      permissionInputs.push(request.input);
      return approve
        ? { behavior: 'allow', updatedInput: { text: 'approved', _secret: 'from-approval' }, trace: [] }
        : { behavior: 'allow', trace: [] };
    };
    const run = createToolRunner({ tools: [echoTool(calls)], resolvePermission: resolver });
    const block = toolUse('Echo', { text: 'hi', _secret: 'from-model' });
    const frozen = JSON.stringify(block);
    await collect(run, block, contextIn(dir()));
    approve = true;
    await collect(run, block, contextIn(dir()));
    expect(calls).toEqual([{ text: 'hi' }, { text: 'approved', _secret: 'from-approval' }]);
    expect(permissionInputs[0]).toEqual({ text: 'hi', backfilled: true });
    expect(JSON.stringify(block)).toBe(frozen);
  });

  it('applies a hook rewrite after re-validating it, and refuses an invalid rewrite', async () => {
    const calls: Array<Record<string, unknown>> = [];
    let rewrite: Record<string, unknown> = { text: 'rewritten' };
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PreToolUse',
          matcher: 'Echo',
          callback: () => ({ hookSpecificOutput: { updatedInput: rewrite } }),
        },
      ],
    });
    const run = createToolRunner({ tools: [echoTool(calls)], resolvePermission: allowEcho, hooks });
    expect(
      resultText(onlyResult(await collect(run, toolUse('Echo', { text: 'original' }), contextIn(dir())))),
    ).toBe('rewritten');
    rewrite = { text: 'forbidden' };
    expect(
      resultText(onlyResult(await collect(run, toolUse('Echo', { text: 'original' }), contextIn(dir())))),
    ).toMatch(/not allowed/);
    rewrite = { text: ['not', 'a', 'string'] };
    const invalid = onlyResult(await collect(run, toolUse('Echo', { text: 'original' }), contextIn(dir())));
    expect(resultText(invalid)).toMatch(/rewrote the input of Echo into an invalid one/);
    expect(calls).toEqual([{ text: 'rewritten' }]);
  });

  it('a hook allow does not beat a deny or ask rule; a hook deny beats an allow rule', async () => {
    const calls: Array<Record<string, unknown>> = [];
    let decision: 'allow' | 'deny' = 'allow';
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PreToolUse',
          callback: () => ({
            hookSpecificOutput: {
              permissionDecision: decision,
              permissionDecisionReason: `hook ${decision}`,
            },
          }),
        },
      ],
    });
    const deny = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: createToolNameResolver({ deny: ['Echo'] }),
      hooks,
    });
    expect(
      resultText(onlyResult(await collect(deny, toolUse('Echo', { text: 'x' }), contextIn(dir())))),
    ).toMatch(/denied by the rule Echo/);
    const ask = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: createToolNameResolver({ ask: ['Echo'] }),
      hooks,
    });
    expect(
      resultText(onlyResult(await collect(ask, toolUse('Echo', { text: 'x' }), contextIn(dir())))),
    ).toMatch(/needs approval/);
    const open = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: createToolNameResolver({}),
      hooks,
    });
    expect(
      resultText(onlyResult(await collect(open, toolUse('Echo', { text: 'x' }), contextIn(dir())))),
    ).toBe('x');
    decision = 'deny';
    const allowRule = createToolRunner({ tools: [echoTool(calls)], resolvePermission: allowEcho, hooks });
    const denied = onlyResult(await collect(allowRule, toolUse('Echo', { text: 'y' }), contextIn(dir())));
    expect(resultText(denied)).toBe('<tool_use_error>hook deny</tool_use_error>');
    expect(denied.errorClass).toBe('efferent:permission_denied');
    expect(calls).toEqual([{ text: 'x' }]);
  });

  it('blocks on a real exit-2 PreToolUse script and fires PermissionDenied on denials', async () => {
    const folder = dir();
    const log = join(folder, 'denied.log');
    const guard = script(
      folder,
      'guard.sh',
      `input=$(cat)\ncase "$input" in *'"text":"rm'*) echo "no deleting" >&2; exit 2;; esac\nexit 0`,
    );
    const denied = script(folder, 'denied.sh', `cat >> "${log}"; echo >> "${log}"`);
    const hooks = createHookRunner({
      hooks: {
        PreToolUse: [{ matcher: 'Echo', hooks: [{ type: 'command', command: guard }] }],
        PermissionDenied: [{ hooks: [{ type: 'command', command: denied }] }],
      },
      projectDir: folder,
    });
    const calls: Array<Record<string, unknown>> = [];
    const run = createToolRunner({
      tools: [echoTool(calls)],
      resolvePermission: createToolNameResolver({ allow: ['Echo'] }),
      hooks,
    });
    const blocked = onlyResult(await collect(run, toolUse('Echo', { text: 'rm -rf /' }), contextIn(folder)));
    expect(resultText(blocked)).toBe(
      '<tool_use_error>Blocked by a PreToolUse hook: no deleting</tool_use_error>',
    );
    expect(blocked.errorClass).toBe('efferent:hook_blocked');
    // The block denied the call: PermissionDenied hears about it with the hook's reason.
    expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject({
      hook_event_name: 'PermissionDenied',
      tool_name: 'Echo',
      reason: 'no deleting',
    });
    expect(
      resultText(onlyResult(await collect(run, toolUse('Echo', { text: 'ls' }), contextIn(folder)))),
    ).toBe('ls');
    expect(calls).toEqual([{ text: 'ls' }]);

    const strict = createToolRunner({
      tools: [echoTool()],
      resolvePermission: createToolNameResolver({ deny: ['Echo'] }),
      hooks,
    });
    await collect(strict, toolUse('Echo', { text: 'ok' }, 'toolu_denied'), contextIn(folder));
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      hook_event_name: 'PermissionDenied',
      tool_name: 'Echo',
      tool_use_id: 'toolu_denied',
    });
  });

  it('lets PostToolUse replace the output, add context and stop the loop', async () => {
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUse',
          callback: (input) => ({
            continue: false,
            stopReason: 'budget reached',
            hookSpecificOutput: {
              updatedToolOutput: `[${String(input['tool_response'])} redacted]`,
              additionalContext: 'output was redacted',
            },
          }),
        },
      ],
    });
    const run = createToolRunner({ tools: [echoTool()], resolvePermission: allowEcho, hooks });
    const result = onlyResult(await collect(run, toolUse('Echo', { text: 'token-123' }), contextIn(dir())));
    expect(result.result.content).toEqual([
      { type: 'text', text: '[token-123 redacted]' },
      {
        type: 'text',
        text: '<system-reminder>\noutput was redacted\n</system-reminder>',
        systemReminder: true,
      },
    ]);
    expect(result.stopReason).toBe('budget reached');
  });

  it('turns a throw into an is_error result and runs PostToolUseFailure hooks', async () => {
    const hooks = createHookRunner({
      callbacks: [
        {
          event: 'PostToolUseFailure',
          callback: (input) => ({
            hookSpecificOutput: { additionalContext: `saw: ${String(input['error'])}` },
          }),
        },
      ],
    });
    const run = createToolRunner({ tools: [failingTool()], resolvePermission: allowEcho, hooks });
    const result = onlyResult(await collect(run, toolUse('Fail', {}), contextIn(dir())));
    expect(result.result.isError).toBe(true);
    expect(result.result.content).toEqual([
      { type: 'text', text: '<tool_use_error>Fail failed: disk on fire</tool_use_error>' },
      {
        type: 'text',
        text: '<system-reminder>\nsaw: <tool_use_error>Fail failed: disk on fire</tool_use_error>\n</system-reminder>',
        systemReminder: true,
      },
    ]);
    expect(result.errorClass).toBe('Error');
    const expected = createToolRunner({ tools: [failingTool('efferent')], resolvePermission: allowEcho });
    const typed = onlyResult(await collect(expected, toolUse('Fail', {}), contextIn(dir())));
    expect(resultText(typed)).toBe(
      '<tool_use_error>File /x does not exist; check the path.</tool_use_error>',
    );
    expect(typed.errorClass).toBe('efferent:file_not_found');
  });

  it('budgets oversized results to disk', async () => {
    const folder = dir();
    const big = buildTool({
      name: 'Big',
      inputSchema: z.object({}),
      prompt: 'b',
      maxResultSizeChars: 30_000,
      call: async () => ({ data: 'row\n'.repeat(20_000) }),
    });
    const run = createToolRunner({
      tools: [big],
      resolvePermission: allowEcho,
      budget: createResultBudget({ sessionDir: join(folder, 'session') }),
    });
    const text = resultText(onlyResult(await collect(run, toolUse('Big', {}), contextIn(folder))));
    const path = /saved to: (\S+)/.exec(text)?.[1] ?? '';
    expect(path.startsWith(join(folder, 'session', 'tool-results'))).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('row\n'.repeat(20_000));
  });

  it('emits one telemetry event per call with outcome and error class', async () => {
    const telemetry = createCapturingTelemetry();
    const run = createToolRunner({
      tools: [echoTool(), failingTool()],
      resolvePermission: allowEcho,
      telemetry,
    });
    await collect(run, toolUse('Echo', { text: 'a' }, 't1'), contextIn(dir()));
    await collect(run, toolUse('Fail', {}, 't2'), contextIn(dir()));
    await collect(run, toolUse('Nope', {}, 't3'), contextIn(dir()));
    expect(
      telemetry.events.map(({ toolName, toolUseId, outcome, errorClass, agentId }) => ({
        toolName,
        toolUseId,
        outcome,
        errorClass,
        agentId,
      })),
    ).toEqual([
      { toolName: 'Echo', toolUseId: 't1', outcome: 'success', errorClass: undefined, agentId: 'main' },
      { toolName: 'Fail', toolUseId: 't2', outcome: 'tool_error', errorClass: 'Error', agentId: 'main' },
      {
        toolName: 'unknown',
        toolUseId: 't3',
        outcome: 'not_found',
        errorClass: 'efferent:tool_not_found',
        agentId: 'main',
      },
    ]);
    for (const event of telemetry.events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('never throws and yields exactly one result, whatever breaks', async () => {
    const brokenMapping = buildTool({
      name: 'Echo',
      inputSchema: z.object({}),
      prompt: 'e',
      mapResultToBlock: () => {
        throw new Error('cannot map');
      },
      call: async () => ({ data: { ok: true } }),
    });
    const throwingResolver: PermissionResolver = async () => {
      throw new Error('engine crashed');
    };
    const brokenHooks = {
      hasHooks: () => true,
      run: async () => {
        throw new Error('hook runner exploded');
      },
    };
    const cases = [
      createToolRunner({ tools: [brokenMapping], resolvePermission: allowEcho }),
      createToolRunner({ tools: [echoTool()], resolvePermission: throwingResolver }),
      createToolRunner({ tools: [echoTool()], resolvePermission: allowEcho, hooks: brokenHooks }),
    ];
    const results = [];
    for (const run of cases)
      results.push(onlyResult(await collect(run, toolUse('Echo', { text: 'x' }), contextIn(dir()))));
    const [mapped, resolverFailed, hooksFailed] = results.map((result) => ({
      text: resultText(result),
      errorClass: result.errorClass,
    }));
    expect(mapped?.text).toBe('{\n  "ok": true\n}');
    expect(resolverFailed?.text).toMatch(/permission check for Echo failed \(engine crashed\)/);
    expect(hooksFailed?.text).toMatch(/failed internally while running Echo: hook runner exploded/);
    expect(hooksFailed?.errorClass).toBe('efferent:internal');
  });

  it('passes a context modifier and the tool newMessages through', async () => {
    const moving = buildTool({
      name: 'Echo',
      inputSchema: z.object({}),
      prompt: 'cd',
      call: async () => ({
        data: 'moved',
        newMessages: [
          { role: 'user' as const, content: [{ type: 'text' as const, text: 'transcript' }], isMeta: true },
        ],
        contextModifier: (context) => ({ ...context, run: { ...context.run, cwd: '/elsewhere' } }),
      }),
    });
    const run = createToolRunner({ tools: [moving], resolvePermission: allowEcho });
    const context = contextIn(dir());
    const result = onlyResult(await collect(run, toolUse('Echo', {}), context));
    expect(result.newMessages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'transcript' }], isMeta: true },
    ]);
    expect(result.contextModifier?.(context).run.cwd).toBe('/elsewhere');
  });

  it('runs the speculative classifier start only for tools with classifier input', async () => {
    const started: string[] = [];
    const run = createToolRunner({
      tools: [echoTool(), failingTool()],
      resolvePermission: allowEcho,
      classifierStart: (tool) => started.push(tool.name),
    });
    await collect(run, toolUse('Echo', { text: 'a' }), contextIn(dir()));
    await collect(run, toolUse('Fail', {}), contextIn(dir()));
    expect(started).toEqual(['Echo']);
  });
});
