import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Configuration a repository carries for the other agents and hook managers that open it (class
 * `agent-configuration`, docs/decisions/security-agent-configuration.md): Qwen Code's `.qwen/`,
 * Kilo Code's `.kilocode/`, Factory's `.factory/`, Tabnine's `.tabnine/`, OpenHands' `.openhands/`
 * (its `setup.sh` runs when the repository is opened), Roo's `.roomodes`, instructions files
 * (`QWEN.md`, `.roorules`, `.rules`, `.github/agents/`), and the commands a git hook manager runs on the
 * next commit (`.lintstagedrc*`, `lint-staged.config.*`, `.simple-git-hooks.*`, `.overcommit.yml`,
 * `commitlint.config.js`). Each was written in acceptEdits without a person.
 */

const place = decisionPlace('efferent-agent-config-', ({ project }) => {
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const targets = [
  '.qwen/settings.json',
  'QWEN.md',
  '.kilocode/mcp.json',
  '.kilocode/rules/style.md',
  '.factory/settings.json',
  '.factory/droids/x.md',
  '.tabnine/mcp_servers.json',
  '.openhands/setup.sh',
  '.openhands/microagents/repo.md',
  '.roomodes',
  '.roorules',
  '.rules',
  '.augment-guidelines',
  '.github/agents/reviewer.agent.md',
  '.github/chatmodes/plan.chatmode.md',
  '.lintstagedrc',
  '.lintstagedrc.json',
  '.lintstagedrc.mjs',
  'lint-staged.config.js',
  'lint-staged.config.cjs',
  '.simple-git-hooks.json',
  'simple-git-hooks.js',
  '.overcommit.yml',
  'commitlint.config.js',
  '.commitlintrc.cjs',
];

const spellings: Array<(target: string) => string> = [
  (target) => target,
  (target) => target.toUpperCase(),
  (target) => `./${target}`,
  (target) => `src/../${target}`,
  (target) => `packages/web/${target}`,
];

type Writer = (path: string) => { tool: string; input: Record<string, unknown> };
const writers: Writer[] = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: 'x\n' } }),
  (path) => ({ tool: 'Bash', input: { command: `cp src/app.ts '${path}'` } }),
  (path) => ({ tool: 'Bash', input: { command: `echo x > '${path}'` } }),
];

describe('agent and hook-manager configuration: every entry, spelling and writer asks (generated)', () => {
  it('never allows the write in acceptEdits or under broad allow rules', async () => {
    const rules = [{}, { allow: ['Edit(/**)', 'Write', 'Bash(cp *)', 'Bash(echo *)'] }];
    const allowed: string[] = [];
    let count = 0;
    for (const target of targets)
      for (const spell of spellings)
        for (const write of writers)
          for (const rule of rules) {
            const { tool, input } = write(spell(target));
            const result = await place.decideTool(tool, input, rule, 'acceptEdits');
            if (result.behavior === 'allow')
              allowed.push(`${tool} ${JSON.stringify(input)} ${JSON.stringify(rule)}`);
            count++;
          }
    expect(allowed).toEqual([]);
    expect(count).toBe(targets.length * spellings.length * writers.length * rules.length);
  });

  it('keeps neighbours of the names ordinary edits', async () => {
    const benign = [
      'src/qwen.ts',
      'docs/rules.md',
      'src/lint-staged.ts',
      'config/factory.ts',
      '.github/workflows/ci.yml',
      'package.json',
      'eslint.config.js',
    ];
    for (const path of benign) {
      const write = await place.decideTool('Write', { file_path: path, content: 'x\n' }, {}, 'acceptEdits');
      expect(write.behavior, path).toBe('allow');
    }
  });
});
