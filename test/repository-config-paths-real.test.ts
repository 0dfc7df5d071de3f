import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Files the repository's own configuration makes git read (class `repository-config-paths`,
 * docs/decisions/security-repository-config-paths.md). Keys that run nothing were inert, yet
 * `core.worktree=~/.ssh` made `git diff` print `~/.ssh/id_rsa` and `git grep` search it, and
 * `blame.ignoreRevsFile=.env` made `git blame` print the first line of a file a Read deny rule
 * covers. Each path such a key names is now a read of the command.
 */

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    stdio: 'pipe',
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

const place = decisionPlace('efferent-config-paths-', (made) => {
  git(made.project, 'init', '-q');
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
  writeFileSync(join(made.project, '.env'), 'API_KEY=topsecret\n');
  writeFileSync(join(made.project, '.git-blame-ignore-revs'), '# none\n');
  git(made.project, 'add', 'README.md', '.git-blame-ignore-revs');
  git(made.project, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'init');
  mkdirSync(join(made.home, '.ssh'));
  writeFileSync(join(made.home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-LINE\n');
  mkdirSync(join(made.root, 'outside'));
  mkdirSync(join(made.project, 'secrets'));
});

const pathKeys = [
  'core.worktree',
  'blame.ignoreRevsFile',
  'core.excludesFile',
  'core.attributesFile',
  'diff.orderFile',
  'commit.template',
];

/** Values naming a file outside the project, a denied one inside it, or one only known when git runs. */
const hostileValues = (key: string): string[] => {
  const home = key === 'core.worktree' ? '~/.ssh' : '~/.ssh/id_rsa';
  const absolute = join(place.home, key === 'core.worktree' ? '.ssh' : '.ssh/id_rsa');
  const relative = key === 'core.worktree' ? '../../outside' : '../outside/file';
  const denied = key === 'core.worktree' ? '../secrets' : '.env';
  return [home, absolute, relative, denied, '%(prefix)/etc/x', '~root/x', `:(optional)${absolute}`];
};

const denyRules = ['Read(./.env)', 'Read(./secrets)'];

const readOnlyGit = [
  'git status',
  'git diff',
  'git diff --stat',
  'git log -1',
  'git show HEAD',
  'git blame README.md',
  'git grep hello',
  'git ls-files -o',
  'git check-ignore -v x',
];

const withConfig = async (key: string, value: string, run: () => Promise<void>) => {
  // From outside the repository: git itself refuses to start in it while core.worktree is missing.
  const file = join(place.project, '.git', 'config');
  git(place.root, 'config', '--file', file, key, value);
  try {
    await run();
  } finally {
    git(place.root, 'config', '--file', file, '--unset-all', key);
  }
};

describe('repository config paths: what the configuration makes git read is a read of the command (generated)', () => {
  it('git prints what core.worktree and blame.ignoreRevsFile point at (the attack is real)', async () => {
    await withConfig('core.worktree', join(place.home, '.ssh'), async () => {
      git(
        place.project,
        'update-index',
        '--add',
        '--cacheinfo',
        `100644,${git(place.project, 'hash-object', '-w', 'README.md').trim()},id_rsa`,
      );
      expect(place.bash('git diff')).toContain('PRIVATE-KEY-LINE');
      git(place.project, 'rm', '-q', '--cached', 'id_rsa');
    });
    await withConfig('blame.ignoreRevsFile', '.env', async () => {
      expect(place.bash('git blame README.md')).toContain('API_KEY=topsecret');
    });
  });

  it('never allows a read-only git call while a path key names a file outside, denied or unknown', async () => {
    let count = 0;
    for (const key of pathKeys)
      for (const value of hostileValues(key))
        await withConfig(key, value, async () => {
          for (const command of readOnlyGit) {
            const result = await place.decide(command, { deny: denyRules }, 'default');
            expect(result.behavior, `${key}=${value}: ${command}`).not.toBe('allow');
            expect(result.message, command).toMatch(/\.$/);
            count++;
          }
        });
    expect(count).toBe(pathKeys.length * 7 * readOnlyGit.length);
  });

  it('asks under an allow rule for git too, and for a -c on the command line', async () => {
    await withConfig('core.worktree', '~/.ssh', async () => {
      const ruled = await place.decide('git diff', { allow: ['Bash(git diff:*)'] }, 'default');
      expect(ruled.behavior).toBe('ask');
    });
    const commandLine = await place.decide(
      `git -c blame.ignoreRevsFile=${join(place.home, '.ssh/id_rsa')} blame README.md`,
      { allow: ['Bash(git:*)'] },
      'default',
    );
    expect(commandLine.behavior).toBe('ask');
  });

  it('keeps ordinary values allowed: files inside the project that no rule denies', async () => {
    const ordinary: Array<[string, string]> = [
      ['blame.ignoreRevsFile', '.git-blame-ignore-revs'],
      ['core.excludesFile', '.gitignore-extra'],
      ['diff.orderFile', 'docs/order.txt'],
      ['core.attributesFile', '.gitattributes-extra'],
      ['core.worktree', '..'],
    ];
    for (const [key, value] of ordinary)
      await withConfig(key, value, async () => {
        for (const command of readOnlyGit) {
          const result = await place.decide(command, {}, 'default');
          expect(result.behavior, `${key}=${value}: ${command}`).toBe('allow');
        }
      });
  });
});
