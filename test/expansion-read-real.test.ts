import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * Names that only a pattern spells (class `expansion`, docs/decisions/security-expansion.md). A glob
 * argument, the names a path lister pipes into xargs, and whatever else xargs reads from its input
 * are checked against the disk: a cloned repository can hold links leading out of the project and
 * names that split into `../…` words. Each attack below is first run by real bash to show it prints
 * the secret outside the project; in default mode with no rules the engine must then not allow it.
 * The same spellings in a project without such entries stay allowed.
 */

const secret = 'OUTSIDE_SECRET_91c2';
let root: string;
let home: string;
let options: CheckOptions;
const projects = { linked: '', split: '', clean: '' };

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@b',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@b',
};

function commitAll(cwd: string): void {
  const env = { ...gitEnv, HOME: home };
  execFileSync('git', ['init', '-q'], { cwd, env });
  execFileSync('git', ['add', '-A'], { cwd, env });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd, env });
}

function bash(command: string, cwd: string): string {
  const result = spawnSync('bash', ['-c', command], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' },
    timeout: 20_000,
  });
  return `${result.stdout}${result.stderr}`;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-expansion-')));
  home = join(root, 'home');
  mkdirSync(home);
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'secret.txt'), `${secret}\n`);
  for (const name of Object.keys(projects) as Array<keyof typeof projects>) {
    projects[name] = join(root, name);
    mkdirSync(join(projects[name], 'src'), { recursive: true });
    writeFileSync(join(projects[name], 'src', 'app.ts'), 'export const app = 1;\n');
    writeFileSync(join(projects[name], 'notes.txt'), 'notes\n');
    writeFileSync(join(projects[name], 'list'), '../outside/secret.txt\n');
  }
  // A file link and a directory link out of the project, as a cloned repository can hold them.
  symlinkSync('../outside/secret.txt', join(projects.linked, 'key.txt'));
  symlinkSync('../outside', join(projects.linked, 'vault'));
  // `./a ../outside/secret.txt` is one path; split at the blank it is `./a` and `../outside/secret.txt`.
  mkdirSync(join(projects.split, 'a ..', 'outside'), { recursive: true });
  writeFileSync(join(projects.split, 'a ..', 'outside', 'secret.txt'), 'inside\n');
  // A link that stays inside is harmless.
  symlinkSync('notes.txt', join(projects.clean, 'notes-link.txt'));
  for (const project of Object.values(projects)) commitAll(project);
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const decide = (command: string, cwd: string) =>
  checkPermissionCase(
    {
      tool: 'Bash',
      input: { command },
      cwd,
      home,
      mode: 'default',
      rules: { allow: [], deny: [], ask: [] },
    },
    options,
  );

/** Programs that print what they read, line for line. */
const printers = [
  'cat',
  'head',
  'tail',
  'grep -h OUT',
  'nl',
  'tac',
  'paste',
  'cut -c1-200',
  'fold -w 200',
  'expand',
];

/** Glob arguments that reach a link out of the project (in `linked`). */
const globForms = ['P *', 'P k*', 'P ke?.txt', 'P [k]ey.txt', 'P ./*', 'P */*', 'P *.txt', 'P ./[a-z]*'];

/** A path lister piped into xargs, or its output as words (in `linked`). */
const listerForms = [
  'ls | xargs P',
  'ls -1 | xargs P',
  'find . | xargs P',
  'find . -name "k*" | xargs P',
  'find . -type l 2>/dev/null | xargs P',
  'find . -print0 | xargs -0 P',
  'git ls-files | xargs P',
  'P $(git ls-files)',
  'ls | xargs -n1 P',
  'ls | xargs -I{} P {}',
];

/** Names split at blanks (in `split`). */
const splitForms = [
  'find . | xargs P',
  'find . -type f | xargs P',
  'find . -name "*.txt" | xargs P',
  'git ls-files | xargs P',
  'P $(git ls-files)',
];

/** xargs reading names from anything but a path lister (in `clean`). */
const inputForms = [
  'echo ../outside/secret.txt | xargs P',
  "printf '%s\\n' ../outside/secret.txt | xargs P",
  'xargs P <<< ../outside/secret.txt',
  'xargs P < list',
  'cat list | xargs P',
  '{ xargs P; } < list',
  '(xargs P) < list',
  'xargs P <<EOF\n../outside/secret.txt\nEOF',
  'sort list | xargs P',
  'head -1 list | xargs P',
  'find . -name list | xargs cat | xargs P',
  'ls | (cat list | xargs P)',
  '(git ls-files; echo ../outside/secret.txt) | xargs P',
  'git ls-files | xargs echo ../outside/secret.txt | xargs P',
];

const expand = (forms: readonly string[]) =>
  forms.flatMap((form) => printers.map((program) => form.replaceAll('P', program)));

describe('names only a pattern spells, against real programs', () => {
  const attacks: Array<[string, keyof typeof projects, readonly string[]]> = [
    ['a glob reaching a link out of the project', 'linked', globForms],
    ['a path lister whose names include a link out of the project', 'linked', listerForms],
    ['a path lister whose names split into ../ words', 'split', splitForms],
    ['xargs fed by something other than a path lister', 'clean', inputForms],
  ];

  for (const [title, project, forms] of attacks) {
    it(`${title}: really prints the secret with cat`, () => {
      for (const form of forms) {
        const command = form.replaceAll('P', 'cat');
        expect(bash(command, projects[project]), command).toContain(secret);
      }
    });

    it(`${title}: never allowed, for ${forms.length * printers.length} spellings`, async () => {
      const allowed: string[] = [];
      for (const command of expand(forms)) {
        const verdict = await decide(command, projects[project]);
        if (verdict.behavior === 'allow') allowed.push(command);
      }
      expect(allowed).toEqual([]);
    });
  }

  it('keeps globs and path listers allowed in a project without links out or odd names', async () => {
    const benign = expand([...globForms, ...listerForms.filter((form) => !form.includes('-type l'))]);
    const asked: string[] = [];
    for (const command of benign) {
      const verdict = await decide(command, projects.clean);
      if (verdict.behavior !== 'allow') asked.push(`${command}: ${verdict.message}`);
    }
    expect(asked).toEqual([]);
    expect(benign.length).toBeGreaterThan(150);
  });

  it('says what to do next when it asks', async () => {
    const verdict = await decide('find . | xargs cat', projects.split);
    expect(verdict.behavior).toBe('ask');
    expect(verdict.message).toMatch(/would be split.*name the files in the command itself\.$/);
    const linked = await decide('cat *', projects.linked);
    expect(linked.message).toMatch(/outside the working directories/);
  });

  it('asks before Glob walks a pattern whose leading directory is a link out of the project', async () => {
    const glob = (pattern: string) =>
      checkPermissionCase(
        { tool: 'Glob', input: { pattern }, cwd: projects.linked, home, mode: 'default', rules: {} },
        options,
      );
    for (const pattern of ['vault/*', 'vault/**/*.txt', 'vault/secret.txt']) {
      const verdict = await glob(pattern);
      expect(verdict.behavior, pattern).toBe('ask');
      expect(verdict.message).toMatch(/outside the working directories/);
    }
    expect((await glob('src/**/*.ts')).behavior).toBe('allow');
  });

  it('does not take a lister whose errors join its output (|&) for a lister', async () => {
    const verdict = await decide('git ls-files |& xargs cat', projects.clean);
    expect(verdict.behavior).toBe('ask');
    expect((await decide('git ls-files | xargs cat', projects.clean)).behavior).toBe('allow');
  });
});
