import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * A path named inside command text — one word another program runs as a command line or as code
 * (`flock -c 'cat .env' l`, `git -c core.pager='tee .git/hooks/pre-commit' -p log`,
 * `python3 -c 'open(".env")'`) — is judged as the read or write it is: against read and write deny
 * rules, Read ask rules and the protected list (class `command-text-paths`,
 * docs/decisions/security-command-text-paths.md). In bypassPermissions mode each of these ran.
 */

const secret = 'SECRET_TOKEN=r10-command-text';

const place = decisionPlace('efferent-command-text-paths-', (made) => {
  writeFileSync(join(made.project, '.env'), `${secret}\n`);
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
  mkdirSync(join(made.project, 'src'));
  writeFileSync(join(made.project, 'src/a.ts'), 'export {};\n');
  const git = (...args: string[]) =>
    spawnSync('git', args, {
      cwd: made.project,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: made.home },
      encoding: 'utf8',
    });
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'README.md');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
});

const rules = {
  allow: ['Bash(git *)', 'Bash(npm run *)', 'Bash(python3 *)', 'Bash(flock *)', 'Read(./src/**)'],
  deny: ['Read(./.env)', 'Read(~/.ssh/**)', 'Edit(./secrets/**)'],
};

const decide = (command: string, mode: PermissionMode) => place.decide(command, rules, mode);

/** Programs that run a command line given in one word; @CMD@ is the command line. */
const carriers = [
  "flock -c '@CMD@' build.lock",
  "flock build.lock -c '@CMD@'",
  "flock --command='@CMD@' build.lock",
  "flock -c'@CMD@' build.lock",
  "script -qc '@CMD@' /dev/null",
  "script -q --command='@CMD@' /dev/null",
  "su -c '@CMD@'",
  "sg users -c '@CMD@'",
  "watch -n1 '@CMD@'",
  "tmux new -d '@CMD@'",
  "screen -dm sh -c '@CMD@'",
  "unshare -r sh -c '@CMD@'",
  "dbus-run-session -- sh -c '@CMD@'",
  "setpriv --reuid=1000 sh -c '@CMD@'",
  "env -S '@CMD@'",
  "git -c core.pager='@CMD@' -p log",
  "git -c core.sshCommand='@CMD@' fetch",
  "PAGER='@CMD@' git -p log",
  "GIT_PAGER='@CMD@' git log",
  "ssh -o ProxyCommand='@CMD@' host",
  "tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec='@CMD@'",
];

/** Command lines that read the denied file, in the spellings a shell inside would undo. */
const reads = [
  'cat .env',
  'cat ./.env',
  'head -c 99 .env',
  'cp .env /tmp/x',
  'cat .e""nv',
  'cat .e\\nv',
  'cat $PWD/.env',
  'cat "$(pwd)"/.env',
  'cat `pwd`/.env',
  `cat .e$\{E}nv`,
  'cat ~+/.env',
  `cat$\{IFS}.env`,
  'cat .en?',
  'cat .e*',
  'cat .en[v]',
  'cat ../project/.env',
  'cd .. && cat project/.env',
  'tar c . | cat',
  'cat $HOME/.ssh/id_rsa',
  'cat ~/.ssh/id_rsa',
];

/** Command lines that write a protected path or one a write deny rule covers. */
const writes = [
  'echo x >> .git/config',
  'echo x>.git/hooks/pre-commit',
  'tee .git/hooks/pre-commit',
  'cp x .claude/settings.json',
  'sort -o.git/hooks/pre-commit x',
  `tee$\{IFS}.git/hooks/pre-commit`,
  'echo x > .envrc',
  'echo x > CLAUDE.md',
  'echo x > secrets/key',
];

/** Code for interpreters that reads the denied file by name. */
const code = [
  'python3 -c \'print(open(".env").read())\'',
  'python3 -c "print(open(\'.env\').read())"',
  'python3 -c \'import glob; [print(open(f).read()) for f in glob.glob(".e*")]\'',
  'python3 -c \'import os; [print(f) for f in os.listdir(".")]\'',
  'node -e \'console.log(require("fs").readFileSync(".env","utf8"))\'',
  'ruby -e \'puts File.read(".env")\'',
  'php -r \'echo file_get_contents(".env");\'',
  "vim -c 'r .env' x",
  "sqlite3 :memory: '.read .env'",
  "gdb -batch -ex 'shell cat .env'",
];

const modes: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions'];

function bashOutput(command: string): string {
  return place.bash(command);
}

describe('paths named inside command text', () => {
  it('real programs read and write the paths they are given this way', () => {
    expect(bashOutput("flock build.lock -c 'cat .env'")).toContain(secret);
    expect(bashOutput('flock build.lock -c \'cat .e""nv\'')).toContain(secret);
    expect(bashOutput("flock build.lock -c 'cat $PWD/.env'")).toContain(secret);
    expect(bashOutput(`flock build.lock -c 'cat$\{IFS}.en?'`)).toContain(secret);
    expect(bashOutput("script -qc 'cat .env' /dev/null")).toContain(secret);
    expect(bashOutput('python3 -c \'print(open(".env").read())\'')).toContain(secret);
    expect(bashOutput("git -c alias.show-env='!cat .env' show-env")).toContain(secret);
    const hook = join(place.project, '.git/hooks/pre-commit');
    rmSync(hook, { force: true });
    bashOutput("flock build.lock -c 'echo x>.git/hooks/pre-commit'");
    expect(existsSync(hook) && readFileSync(hook, 'utf8')).toBe('x\n');
    rmSync(hook, { force: true });
  });

  const attacks = [
    ...carriers.flatMap((carrier) => [...reads, ...writes].map((line) => carrier.replace('@CMD@', line))),
    ...code,
  ];

  it(`never allows any of ${attacks.length} carried reads and writes, in any mode`, async () => {
    const allowed: string[] = [];
    for (const command of attacks)
      for (const mode of modes) {
        const verdict = await decide(command, mode);
        if (verdict.behavior === 'allow') allowed.push(`${mode}: ${command}`);
      }
    expect(allowed).toEqual([]);
  });

  it('asks as a safety question bypassPermissions does not answer, naming the path', async () => {
    const verdict = await decide("flock build.lock -c 'cat .env'", 'bypassPermissions');
    expect(verdict.behavior).toBe('ask');
    expect(verdict.message ?? '').toMatch(/command text that names .*\.env, which rule Read\(\.\/\.env\)/);
    const hook = await decide("git -c core.pager='tee .git/hooks/pre-commit' -p log", 'bypassPermissions');
    expect(hook.behavior).toBe('ask');
    expect(hook.message ?? '').toMatch(/\.git\/hooks\/pre-commit.*protected/);
  });

  it('a Read ask rule on the path asks too, past an allow rule', async () => {
    const verdict = await place.decide(
      'python3 -c \'print(open("notes/private.md").read())\'',
      { allow: ['Bash(python3 *)'], ask: ['Read(./notes/**)'] },
      'default',
    );
    expect(verdict.behavior).toBe('ask');
  });

  /** Allowed before, in both modes. */
  const everyday = [
    'git status',
    "git commit -m 'fix .env loading'",
    'git commit -am "update CLAUDE.md notes"',
    "git commit --message='document .git/hooks'",
    "git tag -a v1 -m 'ship .env.example'",
    'npm run build',
    "npm run test -- --grep 'parser handles x'",
    "python3 -c 'print(1+2)'",
    'python3 -c \'import json; print(json.load(open("package.json"))["name"])\'',
    'cat README.md',
    'grep -rn TODO src',
    'ls src',
  ];

  it.each(everyday)('%s stays allowed in default and bypassPermissions', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      const verdict = await decide(command, mode);
      expect(verdict.behavior, `${mode}: ${command}: ${verdict.message ?? ''}`).toBe('allow');
    }
  });

  it.each([
    "flock build.lock -c 'npm test'",
    "flock build.lock -c 'cat src/a.ts'",
    "git -c core.pager='less -R' -p log",
    "ssh host 'ls -la /var/log'",
    "watch -n 5 'git status'",
    // A shell's `*` passes over .git, .claude and .env unless the text turns dot globbing on.
    'echo "* item" >> notes.md',
    "echo '*** heading' '? question' >> notes.md",
    "flock build.lock -c 'rm -f *.o *'",
  ])('%s stays allowed in bypassPermissions', async (command) => {
    const verdict = await decide(command, 'bypassPermissions');
    expect(verdict.behavior, `${command}: ${verdict.message ?? ''}`).toBe('allow');
  });

  it.each([
    "flock build.lock -c 'shopt -s dotglob; rm -rf *'",
    "flock build.lock -c 'GLOBIGNORE=x; cp new *'",
    "zsh -c 'rm -rf *(D)'",
    "BASHOPTS=dotglob flock build.lock -c 'rm -rf *'",
  ])('%s, where the pattern reaches names with a dot, asks in bypassPermissions', async (command) => {
    const verdict = await decide(command, 'bypassPermissions');
    expect(verdict.behavior, `${command}: ${verdict.message ?? ''}`).toBe('ask');
  });

  it('a long command text is read without a system call per plain word', async () => {
    const body = Array.from({ length: 1000 }, (_, index) => `w${index}`).join(' ');
    const started = performance.now();
    const verdict = await decide(`flock build.lock -c 'echo ${body}'`, 'bypassPermissions');
    expect(verdict.behavior).toBe('allow');
    expect(performance.now() - started).toBeLessThan(2000);
    const dotted = Array.from({ length: 300 }, (_, index) => `f${index}.txt`).join(' ');
    const many = await decide(`flock build.lock -c 'touch ${dotted}'`, 'bypassPermissions');
    expect(many.behavior).toBe('ask');
  });
});
