import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * Generated variants of "too careful where it is safe": every supported construct (test
 * expressions, if/elif/else, for, while, until, case, arithmetic, set options, cd + git) wrapped
 * around bodies drawn from a set of read-only commands must be allowed in default mode with no
 * rules; the same constructs around any body with a dangerous part (a write, a program that runs
 * code, a substitution with side effects, an arithmetic or test operand that is code) must not be.
 * The working directory is a real git repository in a temp folder.
 */

let root = '';
let home = '';
let options: CheckOptions;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'efferent-constructs-')));
  home = path.join(root, 'home');
  const project = path.join(root, 'proj');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(project, 'README.md'), 'hello\n');
  writeFileSync(path.join(project, 'package.json'), '{}\n');
  writeFileSync(path.join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  execFileSync('git', ['init', '-q', project]);
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, shell };
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

async function decide(command: string): Promise<{ behavior: string; message: string }> {
  const result = await checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: path.join(root, 'proj'), mode: 'default', home },
    options,
  );
  return { behavior: result.behavior, message: result.message ?? '' };
}

/** Constructs with a BODY slot. */
const constructTemplates: readonly string[] = [
  'BODY',
  '[ -d src ] && BODY',
  '[ ! -f missing.txt ] && BODY',
  '[ -n "$HOME" ] || BODY',
  '[[ -f package.json ]] && BODY',
  '[[ -d src && ! -L src ]] && BODY',
  '[[ "$TERM" == xterm* ]] || BODY',
  '[[ $# -eq 0 ]] && BODY',
  'test -f README.md && BODY',
  'if [ -d src ]; then BODY; fi',
  'if [[ -n "$HOME" ]]; then :; else BODY; fi',
  'if git rev-parse --git-dir >/dev/null 2>&1; then echo repo; elif [ -f x ]; then BODY; else echo none; fi',
  'if [ -d src ]\nthen\n  BODY\nfi',
  'for f in a b c; do BODY; done',
  'for f in src/*.ts; do echo "$f"; BODY; done',
  'for f in $(git ls-files); do BODY; done',
  'while read -r line; do BODY; done < README.md',
  'while IFS= read -r line; do BODY; done < README.md',
  'until true; do BODY; done',
  'git ls-files | while read -r f; do BODY; done',
  'case "$TERM" in xterm*) BODY;; *) echo other;; esac',
  'case x in a|b) echo ab;; *) BODY;; esac',
  'set -euo pipefail; BODY',
  'set -e; set -o pipefail; BODY',
  'echo $(( 1 + 2 * 3 )) && BODY',
  'if [ -d src ]; then for f in a b; do BODY; done; fi',
  'for f in a; do if [[ -n "$f" ]]; then BODY; fi; done',
];

/** Bodies that only read inside the working directories. */
const readOnlyBodies: readonly string[] = [
  'git status',
  'git log --oneline -3',
  'GIT_PAGER=cat git log -1',
  'git symbolic-ref HEAD',
  'git show-branch',
  'git config user.email',
  'ls src',
  'cat README.md',
  'wc -l $(git ls-files)',
  'grep -r foo src',
  'echo $(( 2 * 3 ))',
  '[ -f README.md ]',
  '[[ -d src ]]',
  'echo "$HOME"',
];

/** Bodies with at least one dangerous part. */
const dangerousBodies: readonly string[] = [
  'rm -rf src',
  'echo x > out.txt',
  'touch new.txt',
  'curl https://example.com',
  'git push',
  'git config user.email x@example.com',
  'git symbolic-ref HEAD refs/heads/other',
  'cat $(rm -rf src)',
  'echo $(touch pwned)',
  'echo $(( x ))',
  'echo $(( y = 1 ))',
  'echo $(( a[$(id)] ))',
  '[[ $x -eq 1 ]]',
  "[[ 1 -eq 'a[$(id)]' ]]",
  '[[ -v "$x" ]]',
  'test "$a" "$b"',
  '[ $a ]',
  '[ a > out.txt ]',
  'GIT_PAGER=evil git log',
  'PAGER=less git log',
  'cat /etc/passwd',
  "bash -c 'rm x'",
  "python3 -c 'print(1)'",
  'PATH=./bin ls',
  'read PATH < README.md',
  'set -k',
  'set -o posix',
  'set -- a b',
  'cat $(cat list.txt)',
];

const fill = (template: string, body: string) => template.replace('BODY', body);

describe('every supported construct around read-only bodies is allowed', () => {
  const cases = constructTemplates.flatMap((template) => readOnlyBodies.map((body) => fill(template, body)));
  it(`allows all ${cases.length} generated read-only variants`, async () => {
    const failures: string[] = [];
    for (const command of cases) {
      const { behavior, message } = await decide(command);
      if (behavior !== 'allow') failures.push(`${JSON.stringify(command)} → ${behavior}: ${message}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('any dangerous part keeps the construct from being allowed', () => {
  const cases = constructTemplates.flatMap((template) => dangerousBodies.map((body) => fill(template, body)));
  it(`asks or denies all ${cases.length} generated dangerous variants`, async () => {
    const failures: string[] = [];
    for (const command of cases) {
      const { behavior, message } = await decide(command);
      if (behavior === 'allow') failures.push(JSON.stringify(command));
      else if (!message.endsWith('.')) failures.push(`${JSON.stringify(command)}: message without a period`);
    }
    expect(failures).toEqual([]);
  });
});

describe('dangerous parts in the construct itself', () => {
  const headers = [
    'for f in $(rm -rf src); do echo "$f"; done',
    'for PATH in ./bin; do ls; done',
    'for path in ./bin; do ls; done',
    'for f in a; do cd /tmp; done; git status',
    'for f in a b; do cd src; done',
    'while rm -f x; do break; done',
    'until curl https://example.com; do :; done',
    'if touch x; then echo y; fi',
    'if true; then echo y; elif rm x; then :; fi',
    'case $(touch x) in *) echo y;; esac',
    'case x in $(touch y)) echo y;; esac',
    'for f in a; do echo "$f"; done > out.txt',
    'if true; then echo y; fi > out.txt',
    '[[ -f x ]] > out.txt',
    '[[ $(touch x) == y ]]',
    '[[ x =~ $(touch y) ]]',
    '[[ x == `touch y` ]]',
    '[ -f "$(touch x)" ]',
    '[ -v x ] && [ -v "$y" ]',
    '[[ -v a[$(id)] ]]',
    '[[ x -lt $((a[$(id)])) ]]',
    'echo $(( $(id) ))',
    'echo $(( i++ ))',
    'echo $(( $x + 1 ))',
    'echo $(( 10#$x ))',
    'cd /tmp && git status',
    'cd src && git push',
    'cd src && cd .. && git status',
    'cd "$dir" && git status',
    'if [ -d src ]; then cd src; fi; git status',
    'cd src && git -c core.fsmonitor=x status',
    'select f in a b; do rm x; done',
    'for ((i = 0; i < 2; i++)); do rm x; done',
    'f() { rm x; }; f',
    'read -e line',
    'read "$name"',
    'IFS=, ls $x',
    'env IFS=, read -r a b',
    'read -r line < ../secret.txt; echo "$line"',
    'while read -r line; do echo "$line"; done < /etc/passwd',
  ];
  it.each(headers)('%j is not allowed', async (command) => {
    const { behavior, message } = await decide(command);
    expect(behavior, message).not.toBe('allow');
    expect(message).toMatch(/\.$/);
  });
});
