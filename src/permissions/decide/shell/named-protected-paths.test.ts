import { beforeAll, describe, expect, it } from 'vitest';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';

let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
});

/** Broad allow rules a user gives for everyday work. */
const broadRules = [
  'Bash(git *)',
  'Bash(npm *)',
  'Bash(npx *)',
  'Bash(python3 *)',
  'Bash(node *)',
  'Bash(ln *)',
  'Bash(cp *)',
  'Bash(mkfifo *)',
  'Bash(mknod *)',
  'Bash(perl *)',
  'Bash(direnv *)',
  'Bash(link *)',
];

const decide = (command: string, mode: PermissionMode, allow: string[] = broadRules) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: '/srv/proj', mode, rules: { allow, deny: [], ask: [] } },
    options,
  );

/** Commands whose write targets the analysis does not know; PATH stands for the protected path. */
const writers: readonly string[] = [
  'git restore PATH',
  'git restore --source other PATH',
  'git checkout HEAD -- PATH',
  'git checkout-index -f -- PATH',
  'git stash push -- PATH',
  'git config --file PATH a.b c',
  'git config -f PATH a.b c',
  'git mv src/a.ts PATH',
  'git rm PATH',
  'git -C . restore PATH',
  'mkfifo PATH',
  'mknod PATH p',
  'ln -s PATH alias',
  'ln PATH alias',
  'link PATH alias',
  'cp -s PATH alias',
  'npx prettier --write PATH',
  'node gen.js --out=PATH',
  'python3 gen.py PATH',
  'perl -pi -e s/a/b/ PATH',
  'direnv allow PATH',
];

/** Protected paths in several spellings: relative, `./`, absolute, case and trailing-dot variants. */
const paths: readonly string[] = [
  '.claude/settings.json',
  './.claude/settings.json',
  '/srv/proj/.claude/settings.json',
  '.Claude/settings.json',
  '.claude./settings.json',
  '.envrc',
  '.gitmodules',
  'CLAUDE.md',
  'sub/AGENTS.md',
  '.vscode/settings.json',
  '.husky/pre-commit',
  '.mise.toml',
  '.github/instructions/a.md',
  "'.claude'/settings.json",
  '".npmrc"',
];

const modes: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions'];

describe('a command that is not read-only and names a protected path', () => {
  for (const writer of writers) {
    it(`asks for \`${writer}\` with every spelling of a protected path, in every mode`, async () => {
      for (const path of paths) {
        for (const mode of modes) {
          const command = writer.replace('PATH', path);
          const verdict = await decide(command, mode);
          expect(verdict.behavior, `${mode}: ${command}`).not.toBe('allow');
        }
      }
    });
  }

  it('asks for values glued to options, listed with other separators, or known only at run time', async () => {
    const shapes = [
      'node gen.js -o.envrc',
      'node gen.js out=.envrc',
      'python3 gen.py --files=a,.envrc',
      'python3 gen.py --files a:.envrc',
      'node gen.js file:.claude/settings.json',
      'node gen.js $PWD/.envrc',
      `node gen.js ${'$'}{PWD}/CLAUDE.md`,
      'node gen.js "$HOME/.bashrc"',
      'cd sub; node ../gen.js ../.envrc',
      'git config --file=.gitmodules a.b c',
      'node gen.js .env{rc,}',
      'node gen.js .{vscode,x}/settings.json',
      'node gen.js {a,.husky/pre-commit}',
    ];
    for (const command of shapes)
      for (const mode of modes)
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).not.toBe('allow');
  });

  it('asks, even in bypassPermissions, for a command too complex to check whose text names one', async () => {
    const invisible = ['\u200b', '\u2060', '\ufeff'];
    const shapes = [
      'echo aX > .claude/settings.json',
      'echo x > .claude/settings.json # X',
      'printf X >> .envrc',
      'cp payload .git/hooks/pre-commitX',
      'tee CLAUDE.md <<< X',
    ];
    for (const mark of invisible)
      for (const shape of shapes) {
        const command = shape.replace('X', mark);
        expect((await decide(command, 'bypassPermissions')).behavior, JSON.stringify(command)).not.toBe(
          'allow',
        );
      }
    // Without a protected name it stays as it was.
    expect((await decide('echo hi # \u200b', 'bypassPermissions')).behavior).toBe('allow');
  });

  it('asks when the protected path is reached from a directory changed earlier', async () => {
    for (const mode of modes) {
      expect((await decide('cd .claude && git restore settings.json', mode)).behavior).not.toBe('allow');
    }
  });

  it('says which path is protected and why', async () => {
    const verdict = await decide('mkfifo .envrc', 'bypassPermissions');
    expect(verdict.message ?? '').toMatch(/names \/srv\/proj\/\.envrc, which is protected/);
  });
});

describe('everyday commands stay as they were', () => {
  const everyday = [
    'git status',
    'git add .',
    'git add CLAUDE.md .claude/settings.json',
    "git commit -m 'update CLAUDE.md'",
    'git commit -am x',
    'git checkout -b feature',
    'git stash',
    'git pull',
    'git log --oneline -- .claude',
    'git diff .vscode',
    'npm run build',
    'npm test',
    'npx tsc -p tsconfig.json',
    'npx prettier --write src/a.ts',
    'python3 scripts/x.py src/a.ts',
    'ln -s src/a.ts b.ts',
    'cat README.md',
    'grep -rn TODO src',
  ];
  for (const mode of modes) {
    it(`allows them in ${mode}`, async () => {
      for (const command of everyday) {
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).toBe('allow');
      }
    });
  }
});
