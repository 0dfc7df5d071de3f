import { beforeAll, describe, expect, it } from 'vitest';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../default-shell.ts';
import { knownToolDeclarations } from '../known-tools.ts';
import { lexicalRealpath } from '../paths/canonical-path.ts';
import { buildRules } from '../rules/build-rules.ts';
import { callDecisionTable } from './call-steps.ts';
import { type DecisionTable, strongestOpinion } from './decision-table.ts';
import { evaluatePermission } from './evaluate-permission.ts';
import { subcommandDecisionTable } from './shell/subcommand-steps.ts';
import { createWorkspace } from './workspace.ts';

let shell: DefaultShellAnalyzer;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
});

describe('decision tables', () => {
  it('the first step with an opinion decides, and the steps below it never run', () => {
    const ran: string[] = [];
    const step = (name: string, opinion: string | undefined) => ({
      name,
      check: () => {
        ran.push(name);
        return opinion;
      },
    });
    const table: DecisionTable<unknown, string> = [
      step('silent', undefined),
      step('deny', 'deny'),
      step('allow', 'allow'),
    ];
    expect(strongestOpinion(table, {})).toBe('deny');
    expect(ran).toEqual(['silent', 'deny']);
    expect(strongestOpinion([step('silent', undefined)], {})).toBeUndefined();
  });

  it('every row is named once, and a call always gets an opinion', () => {
    for (const table of [callDecisionTable, subcommandDecisionTable] as DecisionTable<never, unknown>[]) {
      const names = table.map((row) => row.name);
      expect(new Set(names).size).toBe(names.length);
    }
    expect(callDecisionTable.at(-1)?.name).toBe('nothing allows it');
  });

  it('a deny rule on the command stops the decision before the disk is looked at', () => {
    let realpaths = 0;
    const workspace = createWorkspace({
      cwd: '/srv/proj',
      projectRoot: '/srv/proj',
      home: '/home/user',
      additionalDirectories: [],
      realpath: (path) => {
        realpaths++;
        return lexicalRealpath(path);
      },
    });
    const origin = { source: 'projectSettings' as const, origin: 'test', root: '/srv/proj' };
    const input = { command: 'grep -R token /etc /home/user/.config docs' };
    const request = (deny: string[]) => ({
      tool: { name: 'Bash', aliases: [] },
      input,
      target: knownToolDeclarations.Bash?.target(input, workspace.cwd) ?? { kind: 'none' as const },
      readOnly: true,
      mode: 'default' as const,
      rules: { allow: [], ask: [], deny: buildRules(deny, 'deny', origin).rules },
      workspace,
      shell,
    });
    const denied = evaluatePermission(request(['Bash(grep *)']));
    expect(denied.behavior).toBe('deny');
    expect(realpaths).toBe(0);
    const asked = evaluatePermission(request(['Bash(rm *)']));
    expect(asked.behavior).toBe('ask');
    expect(realpaths).toBeGreaterThan(0);
  });
});
