import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * A program fed through standard input reaches a shell the `stdin-program` class did not see: behind
 * a runner the analyser does not remove (`… | flock L sh`, `… | unshare -r bash`), through a program
 * that runs commands from its input itself (`… | su`, `… | ssh host`, `… | parallel`, `… | crontab -`),
 * as a build file (`make -f -`, `make -f <(…)`), or named by its path (`/bin/bash <<< …`). Class
 * `stdin-program-runners`, docs/decisions/security-stdin-program-runners.md.
 */

const place = decisionPlace('efferent-stdin-program-runners-');

function removesVictim(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  place.bash(command);
  return !existsSync(victim);
}

/** Ways the program text is fed; @P@ is the program that reads it, @T@ the text. */
const feeds = [
  "echo '@T@' | @P@",
  "printf '%s\\n' '@T@' | @P@",
  "@P@ <<< '@T@'",
  "@P@ <<'EOF'\n@T@\nEOF",
  'cat script.txt | @P@',
  '@P@ < script.txt',
];

/** Programs that hand their input to a shell. */
const shellReaders = [
  'flock build.lock sh',
  'flock build.lock bash -s',
  'flock -n build.lock /bin/sh',
  'unshare -r sh',
  'dbus-run-session sh',
  'setpriv --reuid=1000 bash',
  'runuser -u nobody -- sh',
  'tmux new sh',
  'toybox sh',
  'ssh localhost sh',
  'docker exec -i c sh',
  'kubectl exec -i p -- sh',
  'systemd-run --pipe sh',
  'npx sh',
  'npm exec sh',
  'script -c sh',
  'su',
  'su nobody',
  'sg users',
  'sudo -s',
  'sudo -u root -i',
  'doas -s',
  'script -q /dev/null',
  'ssh localhost',
  'ssh -p 22 -l me localhost',
  'parallel',
  'parallel -j2',
  '/bin/sh',
  '/bin/bash',
  '/usr/bin/env bash',
  './sh',
  'fish',
  'csh',
  'tcsh',
  'xonsh',
  'elvish',
  'pwsh',
];

/** Build tools given their build file through input. */
const buildReaders = [
  'make -f -',
  'make -f /dev/stdin',
  'make --file=-',
  'make --makef=/dev/stdin',
  'make -sf -',
  'gmake -f -',
];

const modes: readonly PermissionMode[] = ['bypassPermissions', 'acceptEdits', 'default'];
const denyRules = ['Bash(rm:*)', 'Bash(rm *)'];

describe('programs fed through input to shells the analyser did not see', () => {
  it('real programs run the text they are fed', () => {
    expect(removesVictim("echo 'rm victim' | flock build.lock sh")).toBe(true);
    expect(removesVictim("echo 'rm victim' | unshare -r sh")).toBe(true);
    expect(removesVictim("/bin/bash <<< 'rm victim'")).toBe(true);
    expect(removesVictim("printf 'all:\\n\\trm victim\\n' | make -f -")).toBe(true);
    expect(removesVictim("make -f <(printf 'all:\\n\\trm victim\\n')")).toBe(true);
  });

  const shellCases = shellReaders.flatMap((reader) =>
    feeds.map((feed) => feed.replace('@P@', reader).replace('@T@', 'rm victim')),
  );
  const buildCases = [
    ...buildReaders.flatMap((reader) =>
      feeds.map((feed) => feed.replace('@P@', reader).replace('@T@', 'all: ; rm victim')),
    ),
    "make -f <(printf 'all:\\n\\trm victim\\n')",
    "make -f /dev/fd/3 3< <(printf 'all: ; rm victim')",
    "just --justfile <(echo 'x:\n  rm victim') x",
    "ninja -f <(echo 'rule r')",
  ];
  const crontab = [
    "echo '* * * * * rm victim' | crontab -",
    "echo '* * * * * rm victim' | crontab",
    "crontab - <<< '* * * * * rm victim'",
  ];
  const attacks = [...shellCases, ...buildCases, ...crontab];

  it(`never allows any of ${attacks.length} fed programs past a deny rule, in any mode`, async () => {
    const allowed: string[] = [];
    for (const command of attacks)
      for (const rule of denyRules)
        for (const mode of modes) {
          const verdict = await place.decide(command, { deny: [rule] }, mode);
          if (verdict.behavior === 'allow') allowed.push(`${mode} ${rule}: ${command}`);
        }
    expect(allowed).toEqual([]);
  });

  it('a shell named by its path reads its literal body like the shell named plainly', async () => {
    for (const command of [
      "/bin/bash <<< 'rm victim'",
      "/bin/sh -c 'rm victim'",
      "/usr/local/bin/zsh <<< 'rm victim'",
    ])
      expect(
        (await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions')).behavior,
        command,
      ).toBe('deny');
  });

  it.each([
    'git log --oneline | head -5',
    'git diff | grep -n sh',
    'ls | grep bash',
    'ps aux | grep node',
    "echo data | ssh host 'cat > /tmp/x'",
    'echo data | ssh host cat',
    'cat list | parallel echo',
    'crontab -l | grep x',
    'make build',
    'make -f Makefile test',
    'make -C src',
    'echo x | python3 script.py',
    'echo hi | sh -c cat',
    "/bin/bash <<< 'ls -la'",
    'npm test 2>&1 | tail -20',
  ])('%s stays allowed under Bash(rm:*) in bypassPermissions', async (command) => {
    const verdict = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(verdict.behavior, `${command}: ${verdict.message ?? ''}`).toBe('allow');
  });

  it.each([
    'git log --oneline | head -5',
    'git diff | grep -n sh',
    'ls | grep bash',
    'cat README.md | wc -l',
  ])('%s stays read-only in default mode', async (command) => {
    const verdict = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'default');
    expect(verdict.behavior, `${command}: ${verdict.message ?? ''}`).toBe('allow');
  });
});
