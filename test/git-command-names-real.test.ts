import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A deny rule on a git command covers every name git runs it by (class `git-command-names`,
 * docs/decisions/security-git-command-names.md). A repository's `alias.p = push`, `help.autocorrect`
 * turning `git psuh` into `git push`, and the dashed programs `git-push` and
 * `/usr/lib/git-core/git-push` all run `git push`, and slipped past `Bash(git push *)` in
 * bypassPermissions, where only deny rules stand in the way. Real git first pushes through the
 * alias; then the engine must not allow any of these while a rule names git.
 */

function git(args: string[], cwd = place.project) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: place.home, GIT_CONFIG_NOSYSTEM: '1' },
    timeout: 20_000,
  });
}

const place = decisionPlace('efferent-git-names-', ({ root, project }) => {
  git(['init', '-q', '--bare', join(root, 'remote.git')], root);
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.email', 'a@example.test']);
  git(['config', 'user.name', 'a']);
  git(['config', 'alias.p', 'push']);
  git(['remote', 'add', 'origin', join(root, 'remote.git')]);
  writeFileSync(join(project, 'README.md'), 'x\n');
  git(['add', 'README.md']);
  git(['commit', '-qm', 'init']);
});

const decide = (command: string, rule: string) =>
  place.decide(command, { deny: [rule] }, 'bypassPermissions');

/** Other names for `git push` (S = the rest of the words). */
const pushNames = [
  'git p S',
  'git -c color.ui=never p S',
  'git --no-pager p S',
  'git psuh S',
  'git -c help.autocorrect=immediate psuh S',
  'git-push S',
  '/usr/lib/git-core/git-push S',
  'env git-push S',
  'timeout 5 git-push S',
  'git pushy S',
];

describe('every name git runs a command by', () => {
  it('real git pushes through a repository alias', () => {
    const result = git(['p', 'origin', 'main']);
    expect(result.status, result.stderr).toBe(0);
    expect(git(['rev-parse', 'main'], join(place.root, 'remote.git')).stdout.trim()).toMatch(
      /^[0-9a-f]{40}$/,
    );
  });

  it.each(
    ['Bash(git push:*)', 'Bash(git push *)', 'Bash(git:*)'].flatMap((rule) =>
      pushNames.map((name) => [name.replace('S', 'origin main'), rule]),
    ),
  )('%s is not allowed past %s', async (command, rule) => {
    const result = await decide(command, rule);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each(['git-commit -m x', '/usr/lib/git-core/git-commit -m x', 'git ci -m x'])(
    '%s is not allowed past Bash(git commit:*)',
    async (command) => {
      const result = await decide(command, 'Bash(git commit:*)');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    'git status',
    'git log --oneline',
    'git commit -m x',
    'git fetch origin',
    'git -C . diff',
    'git stash list',
  ])('%s stays allowed past Bash(git push:*)', async (command) => {
    const result = await decide(command, 'Bash(git push:*)');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
