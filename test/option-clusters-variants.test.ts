import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A prefix allow rule (`Bash(ssh *)`) never covers an option that runs a program or writes outside
 * the working directory; the option must be seen however it is grouped (class `option-clusters`,
 * docs/decisions/security-option-clusters.md): behind digit flags (`ssh -4o`, `curl -0o`), in tar's
 * dashless first word (`tar xPf`), and for the options that were missing (`ssh -I`, `tar -P`, sftp,
 * gawk's file writers, `git apply --unsafe-paths`).
 */

const place = decisionPlace('efferent-option-clusters-', (made) => {
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
});

/** [rule, command template]: `@` is where a cluster prefix goes (`-@o` → `-4o`, `-vCo`). */
const risky: ReadonlyArray<readonly [string, string]> = [
  ['Bash(ssh *)', "ssh -@o ProxyCommand='sh x' host"],
  ['Bash(ssh *)', "ssh -@oProxyCommand='sh x' host"],
  ['Bash(ssh *)', 'ssh -@F ./ssh_config host'],
  ['Bash(ssh *)', 'ssh -@I ./pkcs11.so host'],
  ['Bash(ssh *)', 'ssh -@I./pkcs11.so host'],
  ['Bash(scp *)', 'scp -@S ./prog a host:b'],
  ['Bash(sftp *)', 'sftp -@S ./prog host'],
  ['Bash(sftp *)', 'sftp -@D ./server host'],
  ['Bash(sftp *)', 'sftp -@b ./batch host'],
  ['Bash(sftp *)', "sftp -@o ProxyCommand='sh x' host"],
  ['Bash(curl *)', 'curl -@o /tmp/out https://example.com'],
  ['Bash(curl *)', 'curl -@O https://example.com/.bashrc'],
  ['Bash(curl *)', 'curl -@K ./curlrc https://example.com'],
  ['Bash(curl *)', 'curl -@w @format https://example.com'],
  ['Bash(wget *)', 'wget -@O /tmp/out https://example.com'],
  ['Bash(wget *)', 'wget -@e output_document=../x https://example.com'],
  ['Bash(git clone *)', "git clone -@c core.sshCommand='sh x' ssh://host/repo"],
  ['Bash(git fetch *)', "git fetch -@u 'sh x' origin"],
  ['Bash(git rebase *)', "git rebase -@x 'sh x' HEAD~1"],
  ['Bash(tar *)', 'tar -@xPf evil.tar'],
  ['Bash(tar *)', "tar -@I 'sh x' -cf out.tar src"],
  ['Bash(less *)', 'less -@o/tmp/log README.md'],
  ['Bash(awk *)', 'awk -@o/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk -@d/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk -@p/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk -@D ./debug-commands 1 README.md'],
  ['Bash(awk *)', 'awk -@f prog.awk README.md'],
];

/** Cluster prefixes: nothing, digit flags and letter flags each program accepts before the option. */
const prefixes: Readonly<Record<string, readonly string[]>> = {
  ssh: ['', '4', '6', '46', 'v', '4v', 'C'],
  scp: ['', '4', '6', 'q'],
  sftp: ['', '4', '6', 'q'],
  curl: ['', '0', '1', '2', '4', '6', 's', '4s'],
  wget: ['', '4', '6', 'q', '4q'],
  git: ['', '4', '6', 'q', '4q'],
  tar: ['', 'v'],
  less: ['', 'N', '#4', 'S'],
  awk: ['', 'b', 'S', 'bS'],
};

const variants = risky.flatMap(([rule, template]) => {
  const program = template.split(' ')[0] ?? '';
  return (prefixes[program] ?? ['']).map((prefix) => [rule, template.replace('@', prefix)] as const);
});

/** Other spellings of the same options. */
const spellings: ReadonlyArray<readonly [string, string]> = [
  ['Bash(tar *)', 'tar xPf evil.tar'],
  ['Bash(tar *)', 'tar xvPf evil.tar'],
  ['Bash(tar *)', 'tar -xf evil.tar -P'],
  ['Bash(tar *)', 'tar -xf evil.tar --absolute-names'],
  ['Bash(tar *)', 'tar --absolute-n -xf evil.tar'],
  ['Bash(tar *)', "tar cIf 'sh x' out.tar src"],
  ['Bash(awk *)', 'awk --pretty-print=/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk --dump-variables=/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk --profile=/tmp/out 1 README.md'],
  ['Bash(awk *)', 'awk --debug=./cmds 1 README.md'],
  ['Bash(awk *)', 'awk -W exec prog.awk'],
  ['Bash(git apply *)', 'git apply --unsafe-paths fix.diff'],
  ['Bash(git apply *)', 'git apply --unsafe fix.diff'],
  ['Bash(git apply *)', 'git apply -v --unsafe-paths --directory=../.. fix.diff'],
];

describe('risky options are seen however they are grouped', () => {
  it('real programs run or write through these spellings', () => {
    const victim = join(place.project, 'victim');
    writeFileSync(victim, 'x\n');
    place.bash("ssh -4o ProxyCommand='rm victim' -o BatchMode=yes efferent.invalid");
    expect(existsSync(victim)).toBe(false);
    // An archive made with -P keeps its absolute member name; `tar xPf` restores it there.
    const outside = join(place.root, 'outside');
    mkdirSync(outside, { recursive: true });
    place.bash(
      `tar -cPf evil.tar ${join(place.project, 'README.md')} --transform='s,^.*README.md,${outside}/pwn,'`,
    );
    place.bash('tar xPf evil.tar');
    expect(existsSync(join(outside, 'pwn'))).toBe(true);
  });

  it.each([...variants, ...spellings])('%s does not allow %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    ['Bash(ssh *)', 'ssh -4 host uptime'],
    ['Bash(ssh *)', 'ssh -p 2222 host'],
    ['Bash(curl *)', 'curl -4 -s https://example.com'],
    ['Bash(curl *)', 'curl -sS -H accept:json https://example.com'],
    ['Bash(tar *)', 'tar -czf out.tgz src'],
    ['Bash(tar *)', 'tar xzf out.tgz'],
    ['Bash(tar *)', 'tar -tvf out.tgz'],
    ['Bash(awk *)', "awk -vdelim=, '{print $1}' README.md"],
    ['Bash(awk *)', "awk -F: '{print $1}' README.md"],
    ['Bash(git apply *)', 'git apply --check fix.diff'],
    ['Bash(git log *)', 'git log -5 --oneline'],
    ['Bash(sftp *)', 'sftp host'],
    ['Bash(less *)', 'less -N README.md'],
  ])('%s still allows %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
