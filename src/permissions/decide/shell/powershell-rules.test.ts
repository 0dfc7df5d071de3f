import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../core/index.ts';
import { evaluatePermission } from '../evaluate-permission.ts';
import { knownToolDeclarations } from '../../known-tools.ts';
import { buildRules } from '../../rules/build-rules.ts';
import { createWorkspace } from '../workspace.ts';
import { powerShellSpellings } from './powershell-rules.ts';

// Class powershell-rules (docs/decisions/security-powershell-rules.md): with no PowerShell analyser,
// a PowerShell deny rule only made its command ask, in every mode, and a person could approve it.

const root = '/srv/proj';
const workspace = createWorkspace({
  cwd: root,
  projectRoot: root,
  home: '/home/user',
  additionalDirectories: [],
});
const origin = { source: 'projectSettings' as const, origin: 'the test', root };

function decide(
  command: string,
  rules: { allow?: string[]; deny?: string[]; ask?: string[] },
  mode: PermissionMode = 'default',
) {
  const declaration = knownToolDeclarations.PowerShell;
  if (!declaration) throw new Error('PowerShell is not a known tool.');
  const input = { command };
  return evaluatePermission({
    tool: { name: 'PowerShell', aliases: declaration.aliases ?? [] },
    input,
    target: declaration.target(input, root),
    readOnly: declaration.readOnly(input),
    mode,
    rules: {
      allow: buildRules(rules.allow ?? [], 'allow', origin).rules,
      deny: buildRules(rules.deny ?? [], 'deny', origin).rules,
      ask: buildRules(rules.ask ?? [], 'ask', origin).rules,
    },
    workspace,
  });
}

const removeNames = ['Remove-Item', 'remove-item', 'REMOVE-ITEM', 'rm', 'ri', 'del', 'erase', 'rd', 'rmdir'];
const wrappers = [
  (c: string) => c,
  (c: string) => `Get-Content README.md; ${c}`,
  (c: string) => `Get-ChildItem | ForEach-Object { ${c} }`,
  (c: string) => `if ($true) { ${c} }`,
  (c: string) => `$(${c})`,
  (c: string) => `& ${c}`,
  (c: string) => `Write-Output a && ${c}`,
  (c: string) => `Write-Output a\n${c}`,
  (c: string) => `iex "${c}"`,
  (c: string) => `powershell -NoProfile -Command '${c}'`,
  (c: string) => `Invoke-Command -ScriptBlock { ${c} }`,
];
const modes: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto'];

describe('PowerShell deny and ask rules on a command no analyser reads', () => {
  it('denies every spelling of a denied cmdlet: its aliases, any case, a module qualifier, backticks, inside blocks and strings', () => {
    const spellings = [
      ...removeNames.map((name) => `${name} -Recurse build`),
      'Microsoft.PowerShell.Management\\Remove-Item build',
      '& "Remove-Item" build',
      'Re`move-Item build',
      '. Remove-Item build',
    ];
    for (const wrap of wrappers)
      for (const spelling of spellings)
        for (const mode of modes) {
          const decision = decide(wrap(spelling), { deny: ['PowerShell(Remove-Item *)'] }, mode);
          expect(decision.behavior, `${mode}: ${wrap(spelling)}`).toBe('deny');
        }
  });

  it('a rule naming an alias covers the cmdlet and its other aliases', () => {
    for (const name of removeNames)
      expect(decide(`${name} x`, { deny: ['PowerShell(del *)'] }).behavior, name).toBe('deny');
    expect(decide('gc .env', { deny: ['PowerShell(Get-Content *)'] }).behavior).toBe('deny');
    expect(decide('type .env', { deny: ['PowerShell(cat *)'] }).behavior).toBe('deny');
  });

  it('an ask rule makes the command ask as a rule, which bypassPermissions does not settle', () => {
    for (const mode of modes) {
      const decision = decide('GIT PUSH origin main', { ask: ['PowerShell(git push *)'] }, mode);
      expect(decision.behavior, mode).toBe('ask');
      expect(JSON.stringify(decision.trace)).toContain('PowerShell(git push *)');
    }
  });

  it('commands no rule names still ask, whatever the allow rules (nothing reads the rest of the command)', () => {
    const rules = { allow: ['PowerShell(Get-Content *)'], deny: ['PowerShell(Remove-Item *)'] };
    for (const command of ['Get-Content README.md', 'Write-Output "remove this item"', 'Get-ChildItem src'])
      expect(decide(command, rules).behavior, command).toBe('ask');
    // A name computed at run time cannot be matched: it asks, and no mode settles it.
    expect(decide("& ('Remove-' + 'Item') x", rules, 'bypassPermissions').behavior).toBe('ask');
  });

  it('a deny rule of another tool does not apply', () => {
    expect(decide('rm x', { deny: ['Bash(rm *)'] }).behavior).toBe('ask');
  });
});

describe('powerShellSpellings', () => {
  it('spells each piece under every name of its cmdlet, folded', () => {
    const spellings = powerShellSpellings('Get-Content a.txt | Out-Null; DEL b');
    expect(spellings).toContain('remove-item b');
    expect(spellings).toContain('rm b');
    expect(spellings).toContain('cat a.txt');
    expect(spellings).toContain('get-content a.txt | out-null; del b');
  });
});
