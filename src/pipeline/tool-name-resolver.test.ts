import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  createToolUseContext,
  type HookPermissionDecision,
  type PermissionRequest,
} from '../core/index.ts';
import { createToolNameResolver } from './tool-name-resolver.ts';

const context = createToolUseContext({ cwd: '/tmp' });
const make = (name: string, extra: Partial<Parameters<typeof buildTool>[0]> = {}) =>
  buildTool({ name, inputSchema: z.object({}), prompt: name, call: async () => ({ data: '' }), ...extra });
const agent = make('Agent', { aliases: ['Task'] });
const bash = make('Bash');
const mcp = make('mcp__github__create_issue');
const guarded = make('Guarded', {
  checkPermissions: async () => ({ behavior: 'ask' as const, message: 'touches .git' }),
});

function ask(tool: ReturnType<typeof make>, hookDecision?: HookPermissionDecision): PermissionRequest {
  const request: PermissionRequest = { tool, input: {}, toolUseId: 't', context };
  return hookDecision ? { ...request, hookDecision } : request;
}

describe('createToolNameResolver', () => {
  it('decides deny > ask > allow > default, with a trace', async () => {
    const resolve = createToolNameResolver({ allow: ['Bash', 'Agent'], ask: ['Bash'], deny: ['Task'] });
    const denied = await resolve(ask(agent));
    expect(denied).toMatchObject({
      behavior: 'deny',
      trace: [{ stage: 'rule', outcome: 'deny', rule: 'Task' }],
    });
    expect((await resolve(ask(bash))).behavior).toBe('ask');
    expect((await resolve(ask(make('Read')))).behavior).toBe('ask');
    expect((await createToolNameResolver({ defaultBehavior: 'allow' })(ask(make('Read')))).behavior).toBe(
      'allow',
    );
  });

  it('matches MCP server prefixes and wildcards', async () => {
    expect((await createToolNameResolver({ deny: ['mcp__github'] })(ask(mcp))).behavior).toBe('deny');
    expect((await createToolNameResolver({ deny: ['mcp__github__*'] })(ask(mcp))).behavior).toBe('deny');
    expect(
      (await createToolNameResolver({ deny: ['mcp__git'], defaultBehavior: 'allow' })(ask(mcp))).behavior,
    ).toBe('allow');
    expect((await createToolNameResolver({ allow: ['*'] })(ask(bash))).behavior).toBe('allow');
  });

  it('treats content rules it cannot check fail-safe: deny/ask apply, allow does not', async () => {
    expect(
      (await createToolNameResolver({ deny: ['Bash(rm *)'], defaultBehavior: 'allow' })(ask(bash))).behavior,
    ).toBe('deny');
    expect((await createToolNameResolver({ allow: ['Bash(git *)'] })(ask(bash))).behavior).toBe('ask');
  });

  it('never lets a hook allow beat a deny or ask rule, nor a tool deny', async () => {
    const allow: HookPermissionDecision = { behavior: 'allow', hook: 'h' };
    expect((await createToolNameResolver({ deny: ['Bash'] })(ask(bash, allow))).behavior).toBe('deny');
    expect((await createToolNameResolver({ ask: ['Bash'] })(ask(bash, allow))).behavior).toBe('ask');
    expect(await createToolNameResolver({})(ask(bash, allow))).toMatchObject({
      behavior: 'allow',
      trace: [{ stage: 'hook', outcome: 'allow' }],
    });
    const refusing = make('Refusing', {
      checkPermissions: async () => ({ behavior: 'deny' as const, message: 'never' }),
    });
    expect((await createToolNameResolver({})(ask(refusing, allow))).behavior).toBe('deny');
  });

  it('lets a hook deny or ask beat an allow rule, and forwards tool asks', async () => {
    const resolve = createToolNameResolver({ allow: ['Bash', 'Guarded'] });
    expect(await resolve(ask(bash, { behavior: 'deny', reason: 'hook no' }))).toMatchObject({
      behavior: 'deny',
      message: 'hook no',
    });
    expect((await resolve(ask(bash, { behavior: 'ask' }))).behavior).toBe('ask');
    expect(await resolve(ask(guarded))).toMatchObject({
      behavior: 'ask',
      message: expect.stringContaining('Guarded needs approval (touches .git)'),
    });
  });
});
