import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * Files the repository's configuration includes (class `repository-config-includes`,
 * docs/decisions/security-repository-config-includes.md). Every key of an included file can be
 * inert (`remote.origin.url`, `user.*`), so the allowlist let `git config --list` and `git remote -v`
 * run, printing a file the repository chose: another repository's configuration with its token,
 * outside the working directories or under a Read deny rule. The included files are now reads.
 */

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    stdio: 'pipe',
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

const token = 'ghp_PRIVATETOKEN';

const place = decisionPlace('efferent-config-includes-', (made) => {
  git(made.project, 'init', '-q');
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
  git(made.project, 'add', 'README.md');
  git(made.project, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'init');
  // Another repository of the user's, outside the project, whose remote URL carries a token.
  const other = join(made.home, 'work', 'private');
  mkdirSync(other, { recursive: true });
  git(other, 'init', '-q');
  git(other, 'remote', 'add', 'origin', `https://bob:${token}@github.com/bob/private.git`);
  // The same shape of file inside the project, under a Read deny rule.
  mkdirSync(join(made.project, 'secrets'));
  writeFileSync(
    join(made.project, 'secrets', 'deploy.gitconfig'),
    `[remote "deploy"]\n\turl = https://ci:${token}@example.com/x.git\n`,
  );
  // An ordinary in-project include and its neighbour files.
  writeFileSync(join(made.project, '.gitconfig.project'), '[diff]\n\trenames = true\n');
  // A link inside the project to the outside file, and an in-project file that includes it.
  symlinkSync(join(other, '.git', 'config'), join(made.project, 'linked.gitconfig'));
  writeFileSync(
    join(made.project, 'chain.gitconfig'),
    `[include]\n\tpath = ${join(other, '.git', 'config')}\n`,
  );
});

const outside = () => join(place.home, 'work', 'private', '.git', 'config');

/** How the repository's configuration names the file: every include form git reads. */
const placements = (): Array<{ name: string; lines: string }> => {
  const target = outside();
  return [
    { name: 'include absolute', lines: `[include]\n\tpath = ${target}\n` },
    { name: 'include ~/', lines: '[include]\n\tpath = ~/work/private/.git/config\n' },
    { name: 'include relative', lines: '[include]\n\tpath = ../../home/work/private/.git/config\n' },
    { name: 'includeIf gitdir', lines: `[includeIf "gitdir:/"]\n\tpath = ${target}\n` },
    { name: 'includeIf onbranch', lines: `[includeIf "onbranch:*"]\n\tpath = ${target}\n` },
    { name: 'includeIf gitdir/i', lines: `[includeIf "gitdir/i:/"]\n\tpath = ${target}\n` },
    { name: 'link in the project', lines: '[include]\n\tpath = ../linked.gitconfig\n' },
    { name: 'nested in a project file', lines: '[include]\n\tpath = ../chain.gitconfig\n' },
    { name: 'denied file inside', lines: '[include]\n\tpath = ../secrets/deploy.gitconfig\n' },
    { name: 'quoted value', lines: `[include]\n\tpath = "${target}"\n` },
    { name: 'capitalised section', lines: `[Include]\n\tPath = ${target}\n` },
  ];
};

const readOnlyGit = [
  'git config --list',
  'git config -l',
  'git config --get-regexp url',
  'git remote -v',
  'git status',
  'git log -1',
  'git diff',
  'git show HEAD',
];

const modes: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk'];
const denyRules = ['Read(./secrets)'];

const withConfig = async (lines: string, run: () => Promise<void>) => {
  const file = join(place.project, '.git', 'config');
  const original = git(place.root, 'config', '--file', file, '--list').length > 0;
  expect(original).toBe(true);
  const text = execFileSync('cat', [file], { encoding: 'utf8' });
  writeFileSync(file, `${text}${lines}`);
  try {
    await run();
  } finally {
    writeFileSync(file, text);
  }
};

describe('repository config includes: a file the configuration includes is a read of the command (generated)', () => {
  it('git prints the included file (the attack is real)', async () => {
    for (const placement of placements())
      await withConfig(placement.lines, async () => {
        expect(place.bash('git config --list'), placement.name).toContain(token);
      });
    await withConfig(placements()[0]?.lines ?? '', async () => {
      expect(place.bash('git remote -v')).toContain(token);
    });
  });

  it('never allows a read-only git call while the configuration includes a file outside or denied', async () => {
    let count = 0;
    for (const placement of placements())
      await withConfig(placement.lines, async () => {
        for (const command of readOnlyGit)
          for (const mode of modes) {
            const result = await place.decide(command, { deny: denyRules }, mode);
            expect(result.behavior, `${placement.name}: ${command} (${mode})`).not.toBe('allow');
            count++;
          }
        const ruled = await place.decide(
          'git config --list',
          { allow: ['Bash(git config:*)'], deny: denyRules },
          'default',
        );
        expect(ruled.behavior, `${placement.name}: under Bash(git config:*)`).toBe('ask');
        count++;
      });
    expect(count).toBe(placements().length * (readOnlyGit.length * modes.length + 1));
  });

  it('keeps a repository that includes its own project file, or nothing, allowed', async () => {
    for (const lines of [
      '',
      '[include]\n\tpath = ../.gitconfig.project\n',
      '[include]\n\tpath = missing.cfg\n',
    ])
      await withConfig(lines, async () => {
        for (const command of readOnlyGit) {
          const result = await place.decide(command, {}, 'default');
          expect(result.behavior, `${JSON.stringify(lines)}: ${command}`).toBe('allow');
        }
      });
  });

  it('lets a Read allow rule for the included file keep git allowed', async () => {
    await withConfig(placements()[0]?.lines ?? '', async () => {
      const result = await place.decide('git remote -v', { allow: [`Read(/${outside()})`] }, 'default');
      expect(result.behavior).toBe('allow');
    });
  });
});
