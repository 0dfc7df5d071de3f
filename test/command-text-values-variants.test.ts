import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A command line carried inside one word — after an option's `=` (`--split-string=…`,
 * `--checkpoint-action=exec=…`, `ProxyCommand=…`), attached to a short option (`env -S'…'`), quoted
 * inside (`script -c 'r""m x'`), or in an environment setting (`PAGER='…' git -p log`) — is still a
 * command a deny rule covers (class `command-text-values`,
 * docs/decisions/security-command-text-values.md). In bypassPermissions mode, where only deny rules
 * stand in the way, each of these was allowed past `Bash(rm:*)`.
 */

const place = decisionPlace('efferent-command-text-values-');

function removesVictim(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  writeFileSync(join(place.project, 'README.md'), '# readme\n');
  place.bash(command);
  return !existsSync(victim);
}

/** Ways to write the command that removes the file (@CMD@ below). */
const payloads = ['rm victim', 'rm -f -- victim', '/bin/rm victim', '/usr/bin/rm -f victim', 'r""m victim'];

/** Carriers of a command line in one word. */
const carriers = [
  "env -S'@CMD@'",
  "env -vS'@CMD@'",
  "env -iS'@CMD@'",
  "env --split-string='@CMD@'",
  "env --split-str='@CMD@'",
  "env --sp='@CMD@'",
  "script -q --command='@CMD@' /dev/null",
  "script -q --com='@CMD@' /dev/null",
  "script -qc'@CMD@' /dev/null",
  "flock /tmp/lock --command='@CMD@'",
  "su --command='@CMD@' root",
  "tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec='@CMD@'",
  "tar -xf a.tar --to-command='@CMD@'",
  "tar -cf x.tar --use-compress-program='@CMD@' src",
  "ssh -o ProxyCommand='@CMD@' host",
  "ssh -oProxyCommand='@CMD@' host",
  "ssh -o 'ProxyCommand=@CMD@' host",
  "ssh -o LocalCommand='@CMD@' -o PermitLocalCommand=yes host",
  "rsync --rsh='@CMD@' a host:b",
  "rsync -e'@CMD@' a host:b",
  "git -c core.pager='@CMD@' -p log",
  "git -c core.sshCommand='@CMD@' fetch",
  "git -c diff.external='@CMD@' diff",
  "git rebase --exec='@CMD@' HEAD~1",
  "npx --call='@CMD@'",
  "npm exec --call='@CMD@'",
  "PAGER='@CMD@' git -p log",
  "GIT_PAGER='@CMD@' git log",
  "GIT_EXTERNAL_DIFF='@CMD@' git diff",
  "GIT_SSH_COMMAND='@CMD@' git fetch",
  "LESSOPEN='|@CMD@ %s' less README.md",
  "MANPAGER='@CMD@' man ls",
  "PROMPT_COMMAND='@CMD@' bash -i",
  "EDITOR='@CMD@' git commit",
  "export GIT_EXTERNAL_DIFF='@CMD@'; git diff",
  "declare -x PAGER='@CMD@'; git -p log",
];

/** Carriers whose value is a program name alone (@PROG@). */
const programCarriers = [
  'sort --compress-program=@PROG@ README.md',
  'sort --compress-prog=@PROG@ README.md',
  'make SHELL=@PROG@',
  'npm --script-shell=@PROG@ run build',
  'PAGER=@PROG@ git -p log',
];

const denyRules = ['Bash(rm:*)', 'Bash(rm *)'];

const variants = [
  ...carriers.flatMap((carrier) => payloads.map((payload) => carrier.replace('@CMD@', payload))),
  ...programCarriers.flatMap((carrier) =>
    ['rm', '/bin/rm', '/usr/bin/rm'].map((name) => carrier.replace('@PROG@', name)),
  ),
];

describe('a command line inside one word meets the deny rules', () => {
  it('real programs run the command they are given this way', () => {
    expect(removesVictim("env -S'rm victim'")).toBe(true);
    expect(removesVictim("env --split-string='rm victim'")).toBe(true);
    expect(removesVictim("script -q --command='rm victim' /dev/null")).toBe(true);
    expect(removesVictim('script -qc \'r""m victim\' /dev/null')).toBe(true);
    expect(
      removesVictim("tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec='rm victim'"),
    ).toBe(true);
    expect(removesVictim("ssh -o ProxyCommand='rm victim' -o BatchMode=yes efferent.invalid")).toBe(true);
  });

  it.each(variants.flatMap((command) => denyRules.map((rule) => [command, rule] as const)))(
    '%s is not allowed past %s in bypassPermissions',
    async (command, rule) => {
      const result = await place.decide(command, { deny: [rule] }, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    `env -S '$\{R} -rf x'`,
    `env -u HOME -S '$\{R} -rf x'`,
    "env -S'\\x72m -rf x'",
    "env --split-string='$(printf rm) x'",
  ])('%s: env expands the string itself, so it is too complex under a rule', async (command) => {
    const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    'ls -la',
    'git status',
    "env -S 'ls -la'",
    "git log --format='%H %s'",
    "git commit -m 'remove the old parser'",
    'tar -czf out.tgz --exclude=node_modules src',
    'sort -k2 -t= README.md',
    'PAGER=cat git log',
    'LANG=C make build',
    "grep -rn 'remove=' src",
  ])('%s stays allowed under Bash(rm:*) in bypassPermissions', async (command) => {
    const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });

  it.each(['ls -la', 'git status', 'grep -rn TODO src', 'sort README.md'])(
    '%s stays allowed as read-only in default mode with the deny rule',
    async (command) => {
      const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'default');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    },
  );
});
