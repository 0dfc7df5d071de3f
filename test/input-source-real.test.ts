import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
 * Input a command receives is read, whatever program runs (class `input-source`,
 * docs/decisions/security-input-source.md). `echo` opens no file, but `xargs echo < FILE`,
 * `xargs -a FILE` and `{ xargs; } < FILE` print FILE: the shell or the wrapper opens it and turns it
 * into the program's words. Each attack is first run by real bash to show that it prints the secret
 * outside the project; in default mode with no rules the engine must then not allow it. The same
 * spellings reading a file inside the project stay allowed, as does input from /dev/null.
 */

const secret = 'INPUT_SOURCE_SECRET_4e1d';
let root: string;
let home: string;
let project: string;
let options: CheckOptions;

function bash(command: string): string {
  const result = spawnSync('bash', ['-c', command], {
    cwd: project,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' },
    timeout: 20_000,
  });
  return `${result.stdout}${result.stderr}`;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-input-source-')));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${secret}\n`);
  writeFileSync(join(root, 'outside.txt'), `${secret}\n`);
  writeFileSync(join(project, 'words.txt'), 'alpha beta\n');
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const decide = (command: string) =>
  checkPermissionCase(
    {
      tool: 'Bash',
      input: { command },
      cwd: project,
      home,
      mode: 'default',
      rules: { allow: [], deny: [], ask: [] },
    },
    options,
  );

/** Programs that open no file themselves, run by xargs (`` = xargs's own default, echo). */
const programs = ['', 'echo', 'printf "%s\\n"', 'basename -a', 'dirname', 'echo -n'];

/** Ways to hand FILE to xargs as its input or its argument file. */
const sourceForms = [
  'xargs P < F',
  'xargs P 0< F',
  'xargs -a F P',
  'xargs --arg-file=F P',
  'xargs --arg-file F P',
  'xargs --arg=F P',
  'xargs -0 -a F P',
  'xargs -r P < F',
  'xargs -n1 P < F',
  'xargs -L1 P < F',
  '{ xargs P; } < F',
  '(xargs P) < F',
  'while true; do xargs P; break; done < F',
  'if true; then xargs P; fi < F',
  'for i in 1; do xargs P; done < F',
  'xargs P 3< F <&3',
  'timeout 5 xargs P < F',
  'nice xargs P < F',
];

/** Outside files, spelled as a model would. */
const outsideFiles = (): string[] => [
  '~/.ssh/id_rsa',
  '$HOME/.ssh/id_rsa',
  '../outside.txt',
  join(root, 'outside.txt'),
];

const spell = (form: string, program: string, file: string) =>
  form.replaceAll('P', program).replaceAll('F', file).replace(/\s+/g, ' ').trim();

describe('input a command receives is read, whatever program runs', () => {
  it('really prints the secret outside the project', () => {
    for (const form of sourceForms)
      for (const file of ['~/.ssh/id_rsa', '../outside.txt']) {
        // bash does not expand `~` after `=` in an ordinary word.
        if (form.includes('=F') && file.startsWith('~')) continue;
        const command = spell(form, 'echo', file);
        expect(bash(command), command).toContain(secret);
      }
  });

  it(`is never allowed from a file outside the project, for ${sourceForms.length * programs.length * 4} spellings`, async () => {
    const allowed: string[] = [];
    for (const form of sourceForms)
      for (const program of programs)
        for (const file of outsideFiles()) {
          const command = spell(form, program, file);
          const verdict = await decide(command);
          if (verdict.behavior === 'allow') allowed.push(command);
        }
    expect(allowed).toEqual([]);
  });

  it('asks when the input file is only known when the command runs', async () => {
    for (const command of [
      'xargs echo < $SOME_FILE',
      'xargs -a "$X" echo',
      'xargs < ~other/x',
      'echo < $(pick)',
    ]) {
      const verdict = await decide(command);
      expect(verdict.behavior, command).not.toBe('allow');
    }
  });

  it('stays allowed for a file inside the project and for input from /dev/null', async () => {
    const asked: string[] = [];
    // `printf` under xargs and a descriptor written against `<` are asked about for other reasons.
    const benignForms = sourceForms.filter((form) => !form.includes('0<'));
    const benignPrograms = programs.filter((program) => !program.startsWith('printf'));
    const benign = [
      ...benignForms.flatMap((form) => benignPrograms.map((program) => spell(form, program, 'words.txt'))),
      'echo hello < /dev/null',
      'cat < /dev/null',
      'wc -l < words.txt',
      'xargs echo < /dev/null',
      'sort < words.txt',
    ];
    for (const command of benign) {
      const verdict = await decide(command);
      if (verdict.behavior !== 'allow') asked.push(`${command}: ${verdict.message}`);
    }
    expect(asked).toEqual([]);
  });

  it('asks about a descriptor written against a redirection, which the grammar reads as an argument', async () => {
    for (const command of ['cat 0< words.txt', 'cat 0<../outside.txt', "sed -n 'p' 0</dev/null"]) {
      const verdict = await decide(command);
      expect(verdict.behavior, command).toBe('ask');
      expect(verdict.message).toMatch(/descriptor 0 written against a redirection/);
    }
    expect((await decide('cat 0 < words.txt')).behavior).toBe('allow');
    expect((await decide('cat words.txt 2>/dev/null')).behavior).toBe('allow');
  });

  it('says which file and why when it asks', async () => {
    const verdict = await decide('xargs -a ../outside.txt echo');
    expect(verdict.behavior).toBe('ask');
    expect(verdict.message).toContain(join(root, 'outside.txt'));
    expect(verdict.message).toMatch(/outside the working directories/);
  });
});
