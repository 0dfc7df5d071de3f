import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  createToolUseContext,
  type PermissionDecision,
  type PermissionResolver,
} from '../../core/index.ts';
import { resolvePermission } from './resolve-permission.ts';

const sed = buildTool({
  name: 'Shell',
  inputSchema: z.object({
    command: z.string(),
    _simulatedSedEdit: z.object({ content: z.string() }).optional(),
  }),
  prompt: 'Runs.',
  call: async () => ({ data: '' }),
});
const context = createToolUseContext({ cwd: '/tmp' });
const trace: PermissionDecision['trace'] = [{ stage: 'rule', outcome: 'allow', detail: 'test' }];
const fixed =
  (decision: Omit<PermissionDecision, 'trace'>): PermissionResolver =>
  async () => ({ ...decision, trace });

function request(resolver: PermissionResolver, extra: Partial<Parameters<typeof resolvePermission>[0]> = {}) {
  return {
    resolver,
    tool: sed,
    input: { command: 'ls' },
    observableInput: { command: 'ls', seen: true },
    toolUseId: 't1',
    context,
    ...extra,
  };
}

describe('resolvePermission (step 8)', () => {
  it('allows with the original input, and shows the resolver the backfilled copy', async () => {
    let seen: Record<string, unknown> | undefined;
    const result = await resolvePermission(
      request(async (permission) => {
        seen = permission.input;
        return { behavior: 'allow', trace };
      }),
    );
    expect(result.ok && result.value.input).toEqual({ command: 'ls' });
    expect(seen).toEqual({ command: 'ls', seen: true });
  });

  it('takes a decision updatedInput, internal fields included, after schema validation', async () => {
    const approved = { command: 'sed -i s/a/b/ f', _simulatedSedEdit: { content: 'b' } };
    const result = await resolvePermission(request(fixed({ behavior: 'allow', updatedInput: approved })));
    expect(result.ok && result.value.input).toEqual(approved);
    const broken = await resolvePermission(
      request(fixed({ behavior: 'allow', updatedInput: { command: 7 } })),
    );
    expect(broken.ok).toBe(false);
  });

  it('turns deny into the resolver message and unanswered ask into an approval-needed refusal', async () => {
    const denied = await resolvePermission(
      request(fixed({ behavior: 'deny', message: 'Not in this repo.' })),
    );
    expect(!denied.ok && denied.failure.message).toBe('<tool_use_error>Not in this repo.</tool_use_error>');
    const asked = await resolvePermission(
      request(
        fixed({ behavior: 'ask', message: 'Shell writes outside the project and nobody can approve it.' }),
      ),
    );
    expect(!asked.ok && asked.failure.message).toBe(
      '<tool_use_error>Shell writes outside the project and nobody can approve it.</tool_use_error>',
    );
    const bare = await resolvePermission(request(fixed({ behavior: 'ask' })));
    expect(!bare.ok && bare.failure.message).toBe(
      '<tool_use_error>Shell needs approval, and nobody was available to approve it, so it was not run. Do not retry the same call; try another approach or ask the user to allow it.</tool_use_error>',
    );
  });

  it('passes the hook decision along; a hook deny is final even if the resolver allows', async () => {
    let given: unknown;
    const result = await resolvePermission(
      request(
        async (permission) => {
          given = permission.hookDecision;
          return { behavior: 'allow', trace };
        },
        { hookDecision: { behavior: 'deny', reason: 'hook says no', hook: 'h' } },
      ),
    );
    expect(given).toEqual({ behavior: 'deny', reason: 'hook says no', hook: 'h' });
    expect(!result.ok && result.failure.message).toBe('<tool_use_error>hook says no</tool_use_error>');
    expect(!result.ok && result.failure.decision.trace.at(-1)?.stage).toBe('hook');
  });

  it('denies when the resolver throws', async () => {
    const result = await resolvePermission(
      request(async () => {
        throw new Error('settings unreadable');
      }),
    );
    expect(!result.ok && result.failure.message).toMatch(
      /permission check for Shell failed \(settings unreadable\)/,
    );
  });
});
