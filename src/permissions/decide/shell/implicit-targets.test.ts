import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';
import { implicitWriteScope } from './implicit-targets.ts';

let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
});

/** Allow rules a user gives for everyday work with these tools. */
const allow = [
  'Bash(git *)',
  'Bash(find:*)',
  'Bash(npx *)',
  'Bash(ruff *)',
  'Bash(eslint *)',
  'Bash(biome *)',
  'Bash(cargo *)',
  'Bash(go *)',
  'Bash(deno *)',
  'Bash(terraform *)',
  'Bash(rubocop *)',
  'Bash(uv *)',
];

type Rules = { allow: string[]; deny: string[]; ask: string[] };
const decide = (command: string, mode: PermissionMode, rules: Rules, cwd = '/srv/proj') =>
  checkPermissionCase({ tool: 'Bash', input: { command }, cwd, mode, rules }, options);

/**
 * Commands that change files under the directory they run in (or the whole work tree) without
 * naming it. Each was allowed under `Edit(./src/**)` denied while its spelled form (`… .`) was not.
 */
const implicitWriters: readonly string[] = [
  "find -name '*.ts' -delete",
  'find -type f -delete',
  'find -H -name x -delete',
  "find -name '*.ts' -exec sed -i s/a/b/ {} +",
  "find \\( -name '*.ts' \\) -delete",
  'ruff format',
  'ruff format --line-length 100',
  'ruff check --fix',
  'ruff check --fix --unsafe-fixes',
  'eslint --fix',
  'eslint --fix --ext .ts',
  'biome check --write',
  'biome format --write',
  'biome lint --apply',
  'deno fmt',
  'deno lint --fix',
  'cargo fmt',
  'cargo fix --allow-dirty',
  'cargo clippy --fix',
  'go fmt',
  'terraform fmt',
  'rubocop -a',
  'rubocop --autocorrect-all',
  'npx eslint --fix',
  'npx -y eslint --fix',
  'uv run ruff format',
  'git clean -fd',
  'git clean -fdx',
  'git clean -f -x',
  'git clean -f -e keep.txt',
  'git clean --force -d',
  'git reset --hard',
  'git reset --hard HEAD~1',
  'git reset --merge',
  'git reset --keep HEAD',
  'git stash',
  'git stash -u',
  'git stash push --include-untracked',
  'git stash save wip',
  'git stash pop',
  'git stash apply',
  'git checkout -f main',
  'git checkout --force',
  'git switch -f main',
  'git switch --discard-changes main',
  'git -C . clean -fdx',
  'git --no-pager reset --hard',
];

/** How the command may be reached: plainly, behind wrappers, after a harmless command. */
const wrappers: readonly string[] = [
  '',
  'timeout 60 ',
  'nice -n 5 ',
  'env CI=1 ',
  'git status && ',
  'command ',
];
const modes: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk'];
const ruleSets: ReadonlyArray<{ name: string; rules: Rules }> = [
  { name: 'deny', rules: { allow, deny: ['Edit(./src/**)'], ask: [] } },
  { name: 'ask', rules: { allow, deny: [], ask: ['Edit(./src/**)'] } },
  { name: 'deny-absolute', rules: { allow, deny: ['Edit(/srv/proj/src/**)'], ask: [] } },
  { name: 'deny-glob', rules: { allow, deny: ['Edit(**/*.ts)'], ask: [] } },
];

describe('the attack is real: these commands change files they do not name', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'efferent-implicit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      stdio: 'pipe',
      env: {
        ...process.env,
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });

  it('git clean -fd removes an untracked file under src/ without naming src', () => {
    const repo = join(dir, 'clean');
    mkdirSync(join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'README'), 'x\n');
    git(repo, 'add', 'README');
    git(repo, 'commit', '-qm', 'init');
    writeFileSync(join(repo, 'src', 'work.ts'), 'unsaved work\n');
    git(repo, 'clean', '-fd');
    expect(existsSync(join(repo, 'src', 'work.ts'))).toBe(false);
  });

  it('git reset --hard and git stash -u throw away changes under src/ without naming src', () => {
    const repo = join(dir, 'reset');
    mkdirSync(join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'src', 'a.ts'), 'committed\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
    writeFileSync(join(repo, 'src', 'a.ts'), 'edited\n');
    git(repo, 'reset', '--hard');
    expect(execFileSync('cat', [join(repo, 'src', 'a.ts')]).toString()).toBe('committed\n');
    writeFileSync(join(repo, 'src', 'new.ts'), 'new\n');
    git(repo, 'stash', '-u');
    expect(existsSync(join(repo, 'src', 'new.ts'))).toBe(false);
  });

  it("find -name '*.ts' -delete starts at . when given no starting point", () => {
    const project = join(dir, 'find');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'a.ts'), 'x\n');
    execFileSync('find', ['-name', '*.ts', '-delete'], { cwd: project });
    expect(existsSync(join(project, 'src', 'a.ts'))).toBe(false);
  });
});

describe('writers that name no operand are judged on the directory they change', () => {
  it('the spelled and the omitted operand get the same kind of answer', async () => {
    for (const [omitted, spelled] of [
      ["find -name '*.ts' -delete", "find . -name '*.ts' -delete"],
      ['ruff format', 'ruff format .'],
      ['eslint --fix', 'eslint --fix .'],
      ['git clean -fdx', 'git clean -fdx .'],
    ] as const) {
      const rules = { allow, deny: ['Edit(./src/**)'], ask: [] };
      const a = await decide(omitted, 'bypassPermissions', rules);
      const b = await decide(spelled, 'bypassPermissions', rules);
      expect(a.behavior, omitted).not.toBe('allow');
      expect(b.behavior, spelled).not.toBe('allow');
    }
  });

  it(`no spelling × wrapper × mode × rule escapes (${implicitWriters.length * wrappers.length * modes.length * ruleSets.length} decisions)`, async () => {
    const escaped: string[] = [];
    for (const writer of implicitWriters)
      for (const wrapper of wrappers)
        for (const mode of modes)
          for (const { name, rules } of ruleSets) {
            const command = `${wrapper}${writer}`;
            const decision = await decide(command, mode, rules);
            if (decision.behavior === 'allow') escaped.push(`${name} ${mode}: ${command}`);
          }
    expect(escaped).toEqual([]);
  });

  it('a writer run in a subdirectory is judged there; the whole-tree ones on the project too', async () => {
    const rules = { allow, deny: ['Edit(./docs/**)'], ask: [] };
    // ruff formats src/ only: docs/ is not under it.
    expect((await decide('cd src && ruff format', 'default', rules)).behavior).toBe('allow');
    // git reset --hard rewrites the whole work tree, docs/ included.
    expect((await decide('cd src && git reset --hard', 'default', rules)).behavior).not.toBe('allow');
    expect((await decide('cd docs && ruff format', 'default', rules)).behavior).not.toBe('allow');
  });
});

describe('everyday work stays allowed', () => {
  const rules = { allow, deny: ['Edit(./src/**)'], ask: [] };
  const everyday: readonly string[] = [
    'git status',
    'git stash list',
    'git stash show -p',
    'git clean -n',
    'git clean -fdn',
    'git clean --dry-run',
    'git checkout main',
    'git switch main',
    'git pull',
    'git log --oneline',
    'git reset HEAD~1',
    'git reset --soft HEAD~1',
    'ruff format --check',
    'ruff format --diff',
    'ruff check',
    'ruff format tests',
    'ruff check --fix tests',
    'eslint tests',
    'eslint --fix tests',
    'npx eslint --fix tests',
    'cargo fmt --check',
    'deno fmt --check',
    'terraform fmt -check',
    "find -name '*.ts'",
    'git stash drop',
    'find -maxdepth 1 -type f',
  ];
  for (const command of everyday)
    it(command, async () => {
      expect((await decide(command, 'default', rules)).behavior).toBe('allow');
    });

  it('with no Edit deny or ask rule nothing changes', async () => {
    const none = { allow, deny: [], ask: [] };
    for (const writer of ['git clean -fdx', 'git reset --hard', 'ruff format', 'eslint --fix', 'cargo fmt'])
      expect((await decide(writer, 'default', none)).behavior, writer).toBe('allow');
  });
});

describe('implicitWriteScope', () => {
  it('reads operands, find starting points and git pathspecs', () => {
    expect(implicitWriteScope(['find', '-name', 'x', '-delete'])).toBe('cwd');
    expect(implicitWriteScope(['find', '.', '-delete'])).toBeUndefined();
    expect(implicitWriteScope(['find', '-L', 'src', '-delete'])).toBeUndefined();
    expect(implicitWriteScope(['find', '-L', '-delete'])).toBe('cwd');
    expect(implicitWriteScope(['git', 'clean', '-fd', '--', 'src'])).toBeUndefined();
    expect(implicitWriteScope(['git', 'clean', '-fd', 'src'])).toBeUndefined();
    expect(implicitWriteScope(['git', 'clean', '-f', '-e', 'x'])).toBe('cwd');
    expect(implicitWriteScope(['git', 'reset', '--hard'])).toBe('tree');
    expect(implicitWriteScope(['git', 'stash', 'list'])).toBeUndefined();
    expect(implicitWriteScope(['ruff', 'format', '--line-length', '100'])).toBe('cwd');
    expect(implicitWriteScope(['ruff', 'format', 'src'])).toBeUndefined();
    expect(implicitWriteScope(['eslint', '--fix', 'src'])).toBeUndefined();
    expect(implicitWriteScope(['ls'])).toBeUndefined();
  });
});
