import type { PermissionRule } from '../../rules/rule-types.ts';
import { indexShellRules, type ShellRuleIndex } from '../../rules/shell-rule-index.ts';
import { describeRule, ruleStep, type Verdict } from '../verdict.ts';

/**
 * PowerShell deny and ask rules on a command efferent cannot parse (there is no PowerShell
 * analyser). The command still asks, but a rule that names what it runs decides first: without this,
 * `PowerShell(Remove-Item *)` made `Remove-Item x` ask instead of deny, even in bypassPermissions,
 * and a person could approve what a rule forbids. PowerShell does not care about case and runs
 * cmdlets under their aliases, so the text and the rules are compared case-folded, and a piece whose
 * command is a cmdlet or one of its built-in aliases is also spelled with every other name of it
 * (`rm`, `del`, `ri`, `Remove-Item`, `Microsoft.PowerShell.Management\Remove-Item`). Decision record:
 * docs/decisions/security-powershell-rules.md.
 */

/** Built-in aliases of the cmdlets a rule is likely to name (Windows PowerShell 5.1 and PowerShell 7). */
const cmdletAliases: Record<string, readonly string[]> = {
  'remove-item': ['rm', 'ri', 'rmdir', 'rd', 'del', 'erase'],
  'get-content': ['gc', 'cat', 'type'],
  'set-content': ['sc'],
  'add-content': ['ac'],
  'clear-content': ['clc'],
  'get-childitem': ['ls', 'dir', 'gci'],
  'copy-item': ['cp', 'copy', 'cpi'],
  'move-item': ['mv', 'move', 'mi'],
  'rename-item': ['ren', 'rni'],
  'new-item': ['ni'],
  'set-item': ['si'],
  'clear-item': ['cli'],
  'get-item': ['gi'],
  'invoke-item': ['ii'],
  'set-itemproperty': ['sp'],
  'remove-itemproperty': ['rp'],
  'invoke-expression': ['iex'],
  'invoke-command': ['icm'],
  'invoke-webrequest': ['iwr', 'curl', 'wget'],
  'invoke-restmethod': ['irm'],
  'start-process': ['start', 'saps'],
  'stop-process': ['kill', 'spps'],
  'get-process': ['ps', 'gps'],
  'start-job': ['sajb'],
  'set-location': ['cd', 'chdir', 'sl'],
  'write-output': ['echo', 'write'],
  'invoke-history': ['r', 'ihy'],
};

/** Every name of a command (folded): the cmdlet and its aliases, keyed by each of them. */
const namesOf = new Map<string, readonly string[]>();
for (const [cmdlet, aliases] of Object.entries(cmdletAliases)) {
  const names = [cmdlet, ...aliases];
  for (const name of names) namesOf.set(name, names);
}

/**
 * Where a PowerShell statement, pipeline element or script text may start: statement and pipeline
 * operators, blocks and subexpressions, and quotes (text handed to `iex`, `Invoke-Command` or
 * `powershell -c` runs as a command).
 */
const separators = /&&|\|\||[;|&\n\r(){}'"]|\$\(|@\(/;

/** A command word without its module qualifier (`Microsoft.PowerShell.Management\Remove-Item`). */
function commandName(word: string): string {
  return word.slice(word.lastIndexOf('\\') + 1);
}

/** The case-folded texts rules are tried against: each piece as written, and under every name of its command. */
export function powerShellSpellings(command: string): string[] {
  const spellings = new Set<string>();
  const folded = command.toLowerCase();
  // A backtick escapes the next character, which then stands for itself: ``Re`move-Item`` is Remove-Item.
  const unescaped = folded.replace(/`([^\n])/g, '$1');
  for (const text of unescaped === folded ? [folded] : [folded, unescaped]) addSpellings(text, spellings);
  return [...spellings];
}

function addSpellings(folded: string, spellings: Set<string>): void {
  const whole = folded.trim();
  if (whole) spellings.add(whole);
  for (const piece of folded.split(separators)) {
    // `. ./x.ps1` dot-sources a script; a leading `.` or `&` invokes what follows.
    const words = piece
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '');
    while (words[0] === '.' || words[0] === '&') words.shift();
    const first = words[0];
    if (first === undefined) continue;
    const rest = words.slice(1);
    spellings.add(piece.trim());
    const name = commandName(first);
    spellings.add([name, ...rest].join(' '));
    for (const other of namesOf.get(name) ?? []) spellings.add([other, ...rest].join(' '));
  }
}

/** Each rule list's folded index, and the rule each folded copy stands for. */
const foldedIndexes = new WeakMap<
  ShellRuleIndex,
  { index: ShellRuleIndex; original: Map<PermissionRule, PermissionRule> }
>();

function foldedIndex(rules: ShellRuleIndex) {
  let folded = foldedIndexes.get(rules);
  if (!folded) {
    const original = new Map<PermissionRule, PermissionRule>();
    const copies = rules.rules.map((rule) => {
      const content = rule.value.ruleContent;
      const copy: PermissionRule = {
        ...rule,
        value: { ...rule.value, ...(content === undefined ? {} : { ruleContent: content.toLowerCase() }) },
      };
      original.set(copy, rule);
      return copy;
    });
    folded = { index: indexShellRules(copies), original };
    foldedIndexes.set(rules, folded);
  }
  return folded;
}

function firstMatch(rules: ShellRuleIndex, spellings: readonly string[]): PermissionRule | undefined {
  if (rules.size === 0) return undefined;
  const { index, original } = foldedIndex(rules);
  const found = index.find(spellings);
  return found === undefined ? undefined : original.get(found);
}

/** A deny or ask verdict when a PowerShell deny or ask rule matches the command's text; else undefined. */
export function powerShellRuleVerdict(
  command: string,
  rules: { deny: ShellRuleIndex; ask: ShellRuleIndex },
): Verdict | undefined {
  if (rules.deny.size === 0 && rules.ask.size === 0) return undefined;
  const spellings = powerShellSpellings(command);
  const deny = firstMatch(rules.deny, spellings);
  if (deny)
    return {
      behavior: 'deny',
      reason: `the command matches ${describeRule(deny)}`,
      rule: deny,
      steps: [ruleStep(deny, 'deny', 'The PowerShell command text matches this deny rule.')],
    };
  const askRule = firstMatch(rules.ask, spellings);
  if (askRule)
    return {
      behavior: 'ask',
      kind: 'rule',
      rule: askRule,
      reason: `the command matches ${describeRule(askRule)}`,
      classifierApprovable: true,
      steps: [ruleStep(askRule, 'ask', 'The PowerShell command text matches this ask rule.')],
      suggestions: [],
    };
  return undefined;
}
