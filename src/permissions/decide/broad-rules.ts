import type { PermissionRule } from '../rules/rule-types.ts';

const interpreters =
  /^(?:python\d*(?:\.\d+)?|node|nodejs|deno|bun|ruby|perl|php|bash|sh|zsh|dash|fish|pwsh|powershell|lua|osascript|env|xargs|sudo|eval|exec)(?:\s|\*|:|$)/;
const packageRunners =
  /^(?:npm|pnpm|yarn|bun)\s+(?:run|exec|x|dlx)(?:\s|\*|:|$)|^(?:npx|bunx|pnpx|uvx|pipx run)(?:\s|\*|:|$)/;

/**
 * Allow rules auto mode drops: they would let the classifier's review be skipped for arbitrary
 * code (`Bash(*)`, interpreters with wildcards, package-manager run commands, any Agent).
 */
export function isBroadAllowRule(rule: PermissionRule): boolean {
  const { toolName, ruleContent } = rule.value;
  if (toolName === 'Agent' || toolName === 'Monitor')
    return ruleContent === undefined || ruleContent.includes('*');
  if (toolName !== 'Bash' && toolName !== 'PowerShell') return false;
  if (ruleContent === undefined || ruleContent.trim() === '*') return true;
  if (!ruleContent.includes('*')) return false;
  return interpreters.test(ruleContent) || packageRunners.test(ruleContent);
}
