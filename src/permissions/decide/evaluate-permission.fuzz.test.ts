import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../core/index.ts';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../default-shell.ts';
import { lexicalRealpath } from '../paths/canonical-path.ts';
import { buildRules } from '../rules/build-rules.ts';
import type { RuleSet } from '../rules/rule-types.ts';
import { evaluatePermission } from './evaluate-permission.ts';
import { createWorkspace } from './workspace.ts';

const runs = Number(process.env.EFFERENT_FUZZ_RUNS ?? 300);
let shell: DefaultShellAnalyzer;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
});

const workspace = createWorkspace({
  cwd: '/srv/proj',
  projectRoot: '/srv/proj',
  home: '/home/user',
  additionalDirectories: [],
  realpath: lexicalRealpath,
});
const words = [
  'git',
  'status',
  'rm',
  '-rf',
  'ls',
  'cat',
  '.env',
  'echo',
  'curl',
  'https://x.example',
  'npm',
  'test',
  'sh',
  '-c',
  'dist',
  '~/.ssh/id_rsa',
  '/etc/passwd',
  'FOO=1',
  'timeout',
  '5',
  'xargs',
  'sed',
  "'s/a/b/w /tmp/x'",
  '$(id)',
  '`id`',
  '"$HOME"',
  '*',
  '{a,b}',
  '$IFS',
  '\\',
  "'",
  '"',
  '#',
];
const operators = [
  ' ',
  ' ',
  ' ',
  ' && ',
  ' || ',
  '; ',
  ' | ',
  ' & ',
  '\n',
  ' > ',
  ' >> ',
  ' < ',
  ' 2>&1 ',
  ' $( ',
  ' ) ',
  ' <(',
  ' >| ',
];
const command = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...operators)), {
      minLength: 1,
      maxLength: 12,
    })
    .map((parts) =>
      parts
        .map(([word, op]) => word + op)
        .join('')
        .trim(),
    ),
  fc.string({ maxLength: 80 }),
);
const rule = fc.oneof(
  fc.constantFrom(
    'Bash',
    'Bash(git *)',
    'Bash(rm:*)',
    'Bash(curl *)',
    'Bash(echo *)',
    'Bash(npm test)',
    'Read(./.env)',
    'Read(~/.ssh/**)',
    'Edit(./dist/**)',
    'Bash(*)',
    'Bash(sh -c *)',
  ),
  fc
    .array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 })
    .map((parts) => `Bash(${parts.join(' ').replace(/[()\\]/g, '')} *)`),
);
const mode = fc.constantFrom<PermissionMode>(
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
);

function rulesOf(allow: string[], deny: string[], ask: string[]): RuleSet {
  const origin = { source: 'projectSettings' as const, origin: 'fuzz', root: '/srv/proj' };
  return {
    allow: buildRules(allow, 'allow', origin).rules,
    deny: buildRules(deny, 'deny', origin).rules,
    ask: buildRules(ask, 'ask', origin).rules,
  };
}

/** The analyser's answer, with a thrown error counted as "too complex" (the engine does the same). */
const analyze = (text: string) => {
  try {
    return shell.analyzeCommand(text, { cwd: workspace.cwd, home: workspace.home });
  } catch {
    return { kind: 'too-complex' as const, reason: 'threw' };
  }
};

const decide = (text: string, rules: RuleSet, chosenMode: PermissionMode) =>
  evaluatePermission({
    tool: { name: 'Bash', aliases: [] },
    input: { command: text },
    target: { kind: 'command', command: text, shell: 'bash' },
    readOnly: null,
    mode: chosenMode,
    rules,
    workspace,
    shell,
  });

describe('evaluatePermission under random rules and commands', () => {
  it('never throws and always explains itself', () => {
    fc.assert(
      fc.property(
        command,
        fc.array(rule, { maxLength: 4 }),
        fc.array(rule, { maxLength: 3 }),
        fc.array(rule, { maxLength: 2 }),
        mode,
        (text, allow, deny, ask, chosenMode) => {
          const result = decide(text, rulesOf(allow, deny, ask), chosenMode);
          expect(['allow', 'deny', 'ask']).toContain(result.behavior);
          expect(result.trace.length).toBeGreaterThan(0);
          if (result.behavior !== 'allow') expect(result.message).toBeTruthy();
        },
      ),
      { numRuns: runs },
    );
  });

  it('asks whenever the analyser cannot vouch for the command (no blanket allow)', () => {
    fc.assert(
      fc.property(
        command,
        fc.array(
          rule.filter((text) => text !== 'Bash' && text !== 'Bash(*)'),
          { maxLength: 4 },
        ),
        (text, allow) => {
          const analysis = analyze(text);
          const unanalysable =
            analysis.kind === 'too-complex' || analysis.tooManySubcommands || analysis.tooLong;
          fc.pre(unanalysable);
          expect(decide(text, rulesOf(allow, [], []), 'default').behavior).not.toBe('allow');
        },
      ),
      { numRuns: runs },
    );
  });

  it('adding a deny rule never turns a refusal into an allow, and a deny on the first program always fires', () => {
    fc.assert(
      fc.property(command, fc.array(rule, { maxLength: 4 }), rule, mode, (text, allow, extra, chosenMode) => {
        const before = decide(text, rulesOf(allow, [], []), chosenMode);
        const after = decide(text, rulesOf(allow, [extra], []), chosenMode);
        if (before.behavior !== 'allow') expect(after.behavior).not.toBe('allow');
        const analysis = analyze(text);
        const program = analysis.kind === 'analyzed' ? analysis.subcommands[0]?.argv[0] : undefined;
        if (program && /^[a-z]+$/.test(program))
          expect(decide(text, rulesOf(allow, [`Bash(${program}:*)`], []), chosenMode).behavior).toBe('deny');
      }),
      { numRuns: runs },
    );
  });
});
