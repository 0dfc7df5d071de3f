import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A prefix allow rule approves a command, not what its options can launch or write (class
 * `prefix-options`, docs/decisions/security-prefix-options.md). Options whose value is a program, a
 * configuration file or command that names programs and files, a file written, or a remote host
 * reached through a remote shell, were covered by the rule when spelled in a form the risky-option
 * table did not list: a short alias (`git clone -c`, `wget -e`, `man -C`, `rg -z`), a config-file
 * option (`wget --config`, `less --lesskey-src`, `npm --userconfig`), an embedded form
 * (`curl -w '%output{FILE}'`, `tar -f host:FILE`). Every spelling a program accepts (separate value,
 * attached value, `--long=value`, an unambiguous abbreviation) must now ask.
 */

const place = decisionPlace('efferent-prefix-options-');

const decide = (command: string, rule: string) => place.decide(command, { allow: [rule] }, 'default');

/** One risky option: the rule, the command around it (O = the option with its value), and its spellings. */
interface RiskyCase {
  rule: string;
  command: string;
  spellings: string[];
}

const risky: RiskyCase[] = [
  {
    rule: 'Bash(git clone:*)',
    command: 'git clone O ssh://host/repo dir',
    spellings: [
      "-c core.sshCommand='touch p'",
      "-ccore.sshCommand='touch p'",
      '-c core.fsmonitor=x',
      '-c alias.x=!sh',
      "--config core.sshCommand='touch p'",
      '--conf=core.fsmonitor=x',
    ],
  },
  {
    rule: 'Bash(git archive:*)',
    command: 'git archive O HEAD',
    spellings: ['-o out.tar', '-oout.tar', '--output=out.tar', '--out out.tar'],
  },
  {
    rule: 'Bash(wget:*)',
    command: 'wget O https://example.test/x',
    spellings: [
      '-e output_document=../.bashrc',
      '-eoutput_document=../.bashrc',
      '-q -e use_askpass=./x',
      '--execute=output_document=x',
      '--config=./wgetrc',
      '--config ./wgetrc',
      '--conf=./wgetrc',
    ],
  },
  {
    rule: 'Bash(man:*)',
    command: 'man O ls',
    spellings: [
      '-C ./man.conf',
      '-C./man.conf',
      '--config-file=./man.conf',
      '--config-file ./man.conf',
      '-X',
      '--gxditview',
    ],
  },
  {
    rule: 'Bash(less:*)',
    command: 'less O README.md',
    spellings: [
      '-k ./keys',
      '-k./keys',
      '--lesskey-file=./keys',
      '--lesskey-src=./keys',
      '--lesskey-src ./keys',
      "--lesskey-content='#env'",
    ],
  },
  {
    rule: 'Bash(rg:*)',
    command: 'rg O pattern',
    spellings: ['-z', '-zi', '-iz', '--search-zip', '--search-z'],
  },
  {
    rule: 'Bash(npm test:*)',
    command: 'npm test O',
    spellings: [
      '--userconfig=./npmrc',
      '--userconfig ./npmrc',
      '--globalconfig=./npmrc',
      '--usercon=./npmrc',
    ],
  },
  {
    rule: 'Bash(curl:*)',
    command: 'curl O https://example.test/x',
    spellings: ["-w '%output{../.bashrc}x'", "--write-out='%output{x}y'", "-w'%output{x}'"],
  },
  {
    rule: 'Bash(tar:*)',
    command: 'tar O README.md',
    spellings: [
      '-cf host:/x',
      '-cfhost:/x',
      '--file=host:/x',
      '--file host:/x',
      '-c -f user@host:x',
      'cf host:x',
    ],
  },
];

describe('options a prefix allow rule does not cover', () => {
  it('real git runs the program a clone -c names', () => {
    const marker = join(place.root, 'clone-marker');
    spawnSync(
      'git',
      ['clone', '-c', `core.sshCommand=touch ${marker}; false`, 'ssh://host/repo', join(place.root, 'c')],
      {
        cwd: place.root,
        timeout: 20_000,
      },
    );
    expect(existsSync(marker)).toBe(true);
  });

  it.each(
    risky.flatMap(({ rule, command, spellings }) =>
      spellings.map((option) => [command.replace('O', option), rule]),
    ),
  )('%s is not allowed by %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    ['git clone https://example.test/repo.git dir', 'Bash(git clone:*)'],
    ['git clone --depth 1 https://example.test/repo.git', 'Bash(git clone:*)'],
    ['git archive HEAD', 'Bash(git archive:*)'],
    ['wget -q https://example.test/x', 'Bash(wget:*)'],
    ['man ls', 'Bash(man:*)'],
    ['man -k printf', 'Bash(man:*)'],
    ['less -N README.md', 'Bash(less:*)'],
    ['rg -i pattern', 'Bash(rg:*)'],
    ['npm test -- --watch=false', 'Bash(npm test:*)'],
    ["curl -s -w '%{http_code}' https://example.test/x", 'Bash(curl:*)'],
    ['tar -cf out.tar README.md', 'Bash(tar:*)'],
    ['tar -tf ./archive.tar', 'Bash(tar:*)'],
    ['tar --force-local -cf c:x README.md', 'Bash(tar:*)'],
  ])('%s stays allowed by %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
