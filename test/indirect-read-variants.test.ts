import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  type CheckResult,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';
import { wrapperNames, wrapperSpec } from '../src/shell/wrappers.ts';

/**
 * Generated variants of the "reads what its words do not show" class: every indirect-read feature
 * in every spelling getopt accepts, inside chains of wrappers, with and without a read deny rule.
 * The count of generated cases is asserted so the report can quote it.
 */

let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
});

const denyEnv = ['Read(./.env)'];

function decide(command: string, deny: string[], mode: 'default' | 'auto' | 'bypassPermissions' = 'default') {
  return checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: '/srv/proj', mode, rules: { allow: [], deny, ask: [] } },
    options,
  );
}

/** Every spelling getopt_long accepts for a long option with a value, and for a short one. */
function longSpellings(option: string, value: string, minimum = 3): string[] {
  const spellings = [`${option}=${value}`, `${option} ${value}`];
  const abbreviated = option.slice(0, Math.max(minimum, option.length - 3));
  if (abbreviated !== option) spellings.push(`${abbreviated}=${value}`, `${abbreviated} ${value}`);
  return spellings;
}
function shortSpellings(letter: string, value: string): string[] {
  return [`-${letter} ${value}`, `-${letter}${value}`];
}

/** Wrapper chains the variants are run inside (none, one, several, with assignments). */
const wrapperChains = [
  '',
  'timeout 5 ',
  'nice -n 2 ',
  'env LANG=C ',
  'nohup ',
  'stdbuf -oL ',
  'ionice -c 3 ',
  'timeout -s KILL 5 nice env LANG=C ',
  '/usr/bin/env -- ',
  'command ',
  'setsid -w ',
];

/** Commands that read files named only inside `list` (or stdin, a script, a response file). */
const indirectReaders: string[] = [
  ...['wc', 'du', 'sort'].flatMap((program) =>
    longSpellings('--files0-from', 'list').map((spelling) => `${program} ${spelling}`),
  ),
  ...[...longSpellings('--arg-file', 'list'), ...shortSpellings('a', 'list')].flatMap((spelling) =>
    ['cat', 'head -n 5', 'grep KEY', 'wc -l', 'tail'].map((inner) => `xargs ${spelling} ${inner}`),
  ),
  ...['-0', '-n 1', '-P 2', '-I{}', '-r'].flatMap((option) =>
    ['cat', 'grep -l KEY'].map((inner) => `xargs ${option} ${inner}${option === '-I{}' ? ' {}' : ''}`),
  ),
  ...[...longSpellings('--files-from', 'list'), ...shortSpellings('f', 'list')].map(
    (spelling) => `file ${spelling}`,
  ),
  'find . -files0-from list',
  ...['strings', 'nm', 'objdump -d', 'readelf -a', 'size'].map((program) => `${program} @list`),
  ...[...longSpellings('--files-from', 'list'), ...shortSpellings('T', 'list')].map(
    (spelling) => `tar -czf out.tgz ${spelling}`,
  ),
  'tar cTf list out.tar',
  'rsync -a --files-from=list . /tmp/x',
  'cpio -o < list',
  'zip out.zip -@ < list',
  ...['md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'b2sum'].flatMap((program) =>
    ['-c sums', '--check sums', '--che sums'].map((option) => `${program} ${option}`),
  ),
  `awk 'BEGIN{ARGV[1]=".env"; ARGC=2} {print}' README.md`,
  `awk '{print}' ARGV`,
  `awk 'BEGIN{while ((getline line < ".env") > 0) print line}'`,
  `gawk '@include "x"; {print}' README.md`,
  `awk -f prog.awk README.md`,
  `jq -n 'import "secrets" as $s; $s'`,
  `jq -L . -n 'include "x"; 1'`,
];

/** git calls that show file contents not limited by a path the engine can check. */
const gitHistoryReaders: string[] = [
  'git log -p',
  'git log -u',
  'git log --patch',
  'git log -U3',
  'git log --unified=1',
  'git log -S SECRET --oneline',
  'git log -GKEY --oneline',
  'git log --word-diff',
  'git log --color-words',
  'git log -m --first-parent',
  'git log --cc',
  'git log -p -- "*.env"',
  "git log -p -- ':(glob)**/.env'",
  'git log -p -- :/',
  'git whatchanged -p',
  'git reflog -p',
  'git show',
  'git show HEAD',
  'git show --stat HEAD',
  'git show -s main',
  'git show 2049a18ae10a',
  'git show 2049a18ae10a -- src',
  'git diff',
  'git diff HEAD',
  'git diff HEAD -- src/a.ts',
  'git diff --cached',
  'git diff HEAD~1 HEAD',
  'git diff-tree -p HEAD~1',
  'git diff-index -p HEAD~1',
  'git diff-files -p',
  'git range-diff HEAD~3..HEAD~1 HEAD~2..HEAD',
  'git grep KEY',
  'git grep KEY HEAD',
  'git grep -e KEY HEAD -- src',
  'git grep KEY v1.0 -- src',
  'git cat-file -p 2049a18ae10a',
  'git cat-file blob 2049a18ae10a',
  'git cat-file --batch',
  'git cat-file --batch-command',
  'git stash show -p',
  'git stash list -p',
  'git config --blob=2049a18ae10a --list',
  'git archive HEAD',
  'git format-patch --stdout HEAD~1',
  'git fast-export --all',
  'git notes show HEAD',
  'git bundle create x.bundle HEAD',
  'git unpack-file 2049a18ae10a',
  'git --no-pager log -p',
  'git -c color.ui=never log -p',
  'git add -p',
  'git checkout -p',
  'git log --stdin -p',
  'git diff --pathspec-from-file=list',
  'git -c core.worktree=/ diff -- src',
  'GIT_WORK_TREE=/home/user git log -p -- src',
  'GIT_DIR=/tmp/other/.git git show HEAD:src/a.ts',
];

/** Neighbours that must stay allowed with the deny rule present. */
const benignWithDeny: string[] = [
  'cat README.md',
  'wc -l src/a.ts',
  'git log --oneline -5',
  'git log --stat -- src',
  'git log -p -- src/a.ts',
  'git log -p HEAD~3..HEAD -- src',
  'git diff -- src/a.ts',
  'git diff HEAD~1 -- src/a.ts',
  'git diff --stat',
  'git show --stat HEAD~1',
  'git show HEAD:src/a.ts',
  'git show HEAD~0 -- src',
  'git grep KEY -- src',
  'git blame src/a.ts',
  'git status',
  'git branch -a',
  'git ls-files',
  'git rev-parse HEAD',
  'sort -u src/a.ts',
  "awk '{print $1}' src/a.ts",
  'timeout 5 cat README.md',
  'timeout --k=1 5 cat README.md',
];

describe('indirect reads, generated: (wrapper chain) x (feature spelling) x (read deny rule)', () => {
  const readerCases = wrapperChains.flatMap((chain) =>
    indirectReaders.map((command) => `${chain}${command}`),
  );
  const gitCases = wrapperChains
    .slice(0, 4)
    .flatMap((chain) => gitHistoryReaders.map((command) => `${chain}${command}`));

  it('generates the expected number of variants', () => {
    // Reported in the decision record; a change here means the generator changed.
    expect(readerCases.length + gitCases.length).toBeGreaterThan(1000);
  });

  it.each(readerCases)('%s asks or denies while Read(./.env) is denied', async (command) => {
    const result = await decide(command, denyEnv);
    expect(result.behavior, result.message).not.toBe('allow');
    expect(result.message ?? '').toMatch(/\.$/);
  });

  it.each(readerCases)('%s is not allowed by the read-only default without deny rules', async (command) => {
    const result: CheckResult = await decide(command, []);
    // xargs fed from stdin is the one documented exception: names come from the line's own pipe.
    if (/xargs (?:-0|-n 1|-P 2|-I\{\}|-r) /.test(command)) return;
    expect(result.behavior, result.message).not.toBe('allow');
  });

  it.each(gitCases)('%s asks or denies while Read(./.env) is denied', async (command) => {
    const result = await decide(command, denyEnv);
    expect(result.behavior, result.message).not.toBe('allow');
  });

  it.each(gitCases)('%s asks or denies in bypassPermissions and auto too', async (command) => {
    for (const mode of ['auto', 'bypassPermissions'] as const) {
      const result = await decide(command, denyEnv, mode);
      expect(result.behavior, `${mode}: ${result.message}`).not.toBe('allow');
    }
  });

  it.each(benignWithDeny)('%s stays allowed with Read(./.env) denied', async (command) => {
    const result = await decide(command, denyEnv);
    expect(result.behavior, result.message).toBe('allow');
  });

  it('does not ask about git history for deny rules outside the repository', async () => {
    for (const command of ['git log -p', 'git diff', 'git show HEAD']) {
      const result = await decide(command, ['Read(~/.ssh/**)']);
      expect(result.behavior, result.message).toBe('allow');
    }
  });
});

describe('wrapper options, generated from the option tables', () => {
  /** Spellings of one option of one wrapper, with `VALUE` where it takes one. */
  function spellingsOf(name: string, arity: string, value: string): string[] {
    if (name === '-') return ['-'];
    if (name.startsWith('--')) {
      if (arity === 'none') return [name];
      if (arity === 'optional') return [name, `${name}=${value}`];
      return [`${name}=${value}`, `${name} ${value}`];
    }
    if (arity === 'none') return [name];
    if (arity === 'optional') return [name, `${name}${value}`];
    return [`${name} ${value}`, `${name}${value}`];
  }
  const positional: Record<string, string> = { timeout: '5 ', chrt: '0 ', taskset: '1 ' };
  const values: Record<string, string> = {
    chdir: '.',
    'set-env': 'PATH',
    'unset-env': 'PATH',
    'search-path': '/tmp/bin',
    'arg-file': 'list',
  };
  const cases = wrapperNames.flatMap((wrapper) => {
    const spec = wrapperSpec(wrapper);
    if (!spec) return [];
    return Object.entries(spec.options).flatMap(([name, option]) =>
      spellingsOf(name, option.arity, values[option.effect] ?? '1').map((spelling) => ({
        wrapper,
        effect: option.effect,
        command: `${wrapper} ${spelling} ${positional[wrapper] ?? ''}cat .env`,
      })),
    );
  });

  it('covers every option of every wrapper', () => {
    expect(cases.length).toBeGreaterThan(200);
  });

  it.each(cases.map((item) => [item.command, item.effect] as const))(
    '%s (effect %s) never lets a read of a denied file through',
    async (command, effect) => {
      const result = await decide(command, denyEnv);
      expect(result.behavior, `${effect}: ${result.message}`).not.toBe('allow');
    },
  );

  it.each(
    cases
      .filter((item) =>
        ['set-env', 'unset-env', 'clear-env', 'search-path', 'opaque', 'arg-file'].includes(item.effect),
      )
      .map((item) => item.command.replace(' .env', ' README.md')),
  )('%s is not allowed by default: the option changes what runs or what is read', async (command) => {
    const result = await decide(command, []);
    expect(result.behavior, result.message).not.toBe('allow');
  });

  const unknownOptions = wrapperNames
    .filter((wrapper) => !['builtin', 'noglob'].includes(wrapper))
    .flatMap((wrapper) =>
      ['--bogus-option', '-Q', '--bogus=1'].map(
        (option) => `${wrapper} ${option} ${positional[wrapper] ?? ''}cat README.md`,
      ),
    );

  it.each(unknownOptions)('%s is too complex to allow: the wrapper option is unknown', async (command) => {
    const result = await decide(command, []);
    expect(result.behavior, result.message).not.toBe('allow');
  });
});
