import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../src/core/index.ts';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../../src/permissions/index.ts';
import { getAllBaseTools } from '../../src/registry/index.ts';
import { type GitLab, makeGitLab } from './git-fixtures.ts';

/**
 * Generated variants of "the repository's configuration runs a program": every spelling of a
 * program-naming key × every place git reads configuration from × every way of invoking a
 * read-only git command × every mode that does not bypass permissions. Each must ask. The same
 * grid with inert configuration must stay allowed. A differential pass checks with real git that
 * the generated fixtures really put the key into the configuration git uses.
 */

const P = '/opt/evil/run';

/** Configuration text naming a program, with the key git would report (lower-case). */
const attackSpellings: Array<{ text: string; key: string }> = [
  { text: `[core]\n\tfsmonitor = ${P}`, key: 'core.fsmonitor' },
  { text: `[Core]\n\tFSMonitor = "${P}"`, key: 'core.fsmonitor' },
  { text: `[core]\n  fsmonitor = ${P} ; a comment`, key: 'core.fsmonitor' },
  { text: `[core]\nfsmonitor = \\\n${P}`, key: 'core.fsmonitor' },
  { text: `[diff]\n\texternal = ${P}`, key: 'diff.external' },
  { text: `[diff "evil"]\n\ttextconv = ${P}`, key: 'diff.evil.textconv' },
  { text: `[diff.evil]\n\ttextconv = ${P}`, key: 'diff.evil.textconv' },
  { text: `[diff "evil"]\n\tcommand = ${P}`, key: 'diff.evil.command' },
  { text: `[filter "evil"]\n\tclean = ${P}`, key: 'filter.evil.clean' },
  { text: `[filter "evil"]\n\tsmudge = ${P}`, key: 'filter.evil.smudge' },
  { text: `[filter "evil"]\n\tprocess = ${P}`, key: 'filter.evil.process' },
  { text: `[filter "lfs"]\n\tclean = ${P} %f`, key: 'filter.lfs.clean' },
  { text: `[gpg]\n\tprogram = ${P}\n[log]\n\tshowSignature = true`, key: 'gpg.program' },
  { text: `[gpg "ssh"]\n\tprogram = ${P}`, key: 'gpg.ssh.program' },
  { text: `[gpg "x509"]\n\tprogram = ${P}`, key: 'gpg.x509.program' },
  { text: `[core]\n\tsshCommand = ${P}`, key: 'core.sshcommand' },
  { text: `[core]\n\tgitProxy = ${P}`, key: 'core.gitproxy' },
  { text: `[core]\n\taskPass = ${P}`, key: 'core.askpass' },
  { text: `[core]\n\teditor = ${P}`, key: 'core.editor' },
  { text: `[core]\n\tpager = ${P}`, key: 'core.pager' },
  { text: `[pager]\n\tlog = ${P}`, key: 'pager.log' },
  { text: `[alias]\n\tst = !${P}`, key: 'alias.st' },
  { text: `[alias]\n\tstatus = log --ext-diff`, key: 'alias.status' },
  { text: `[remote "origin"]\n\tuploadpack = ${P}`, key: 'remote.origin.uploadpack' },
  { text: `[remote "origin"]\n\treceivepack = ${P}`, key: 'remote.origin.receivepack' },
  { text: `[remote "origin"]\n\turl = ext::${P} %S`, key: 'remote.origin.url' },
  { text: `[remote "origin"]\n\turl = ssh://-oProxyCommand=${P}/x`, key: 'remote.origin.url' },
  { text: `[remote "origin"]\n\turl = evil::https://example.com/x`, key: 'remote.origin.url' },
  { text: `[url "ext::${P} %S "]\n\tinsteadOf = https://`, key: 'url.ext::/opt/evil/run %s .insteadof' },
  { text: `[credential]\n\thelper = !${P}`, key: 'credential.helper' },
  { text: `[merge "evil"]\n\tdriver = ${P}`, key: 'merge.evil.driver' },
  { text: `[submodule "s"]\n\tupdate = !${P}`, key: 'submodule.s.update' },
  { text: `[sequence]\n\teditor = ${P}`, key: 'sequence.editor' },
  { text: `[uploadpack]\n\tpackObjectsHook = ${P}`, key: 'uploadpack.packobjectshook' },
  { text: `[lfs "customtransfer.x"]\n\tpath = ${P}`, key: 'lfs.customtransfer.x.path' },
  { text: `[protocol "ext"]\n\tallow = always`, key: 'protocol.ext.allow' },
  { text: `[interactive]\n\tdiffFilter = ${P}`, key: 'interactive.difffilter' },
  { text: `[somethingnew]\n\tlater = ${P}`, key: 'somethingnew.later' },
];

/** Inert configuration a real project has; must not make git ask. */
const inertSpellings: string[] = [
  '[core]\n\tfsmonitor = false',
  '[remote "upstream"]\n\turl = https://github.com/x/y.git\n\tfetch = +refs/heads/*:refs/remotes/upstream/*',
  '[remote "mirror"]\n\turl = git@github.com:x/y.git',
  '[branch "dev"]\n\tremote = origin\n\tmerge = refs/heads/dev\n\trebase = true',
  '[user]\n\tname = "A B"\n\temail = a@b.c',
  '[core]\n\thooksPath = .husky/_',
  '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true',
  '[lfs]\n\trepositoryformatversion = 0',
  '[color "status"]\n\tadded = green',
  '[diff "json"]\n\txfuncname = "^x"',
  '[submodule "lib"]\n\turl = ../lib.git\n\tactive = true',
  '[pull]\n\trebase = true\n[push]\n\tautoSetupRemote = true',
  '[extensions]\n\tworktreeConfig = true',
  '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic x',
];

/** A minimal git directory git recognises (HEAD, objects, refs) with `config`. */
function gitDirectory(path: string, config: string): void {
  mkdirSync(join(path, 'objects'), { recursive: true });
  mkdirSync(join(path, 'refs', 'heads'), { recursive: true });
  writeFileSync(join(path, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(path, 'config'), config);
}

const baseConfig =
  '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

/**
 * Where the configuration goes. Each builds a fixture under `root` and returns the directory git
 * runs in, and whether `git config --list` there shows the key (submodule config is read by the
 * child git that status starts, not by the superproject's).
 */
const placements: Array<{ name: string; build: (root: string, text: string) => string; gitShows: boolean }> =
  [
    {
      name: '.git/config',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), `${baseConfig}${text}\n`);
        return root;
      },
      gitShows: true,
    },
    {
      name: 'include.path (relative, a tracked file)',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), `${baseConfig}[include]\n\tpath = ../settings.gitconfig\n`);
        writeFileSync(join(root, 'settings.gitconfig'), `${text}\n`);
        return root;
      },
      gitShows: true,
    },
    {
      name: 'includeIf gitdir',
      build: (root, text) => {
        gitDirectory(
          join(root, '.git'),
          `${baseConfig}[includeIf "gitdir:**"]\n\tpath = ../settings.gitconfig\n`,
        );
        writeFileSync(join(root, 'settings.gitconfig'), `${text}\n`);
        return root;
      },
      gitShows: true,
    },
    {
      name: 'includeIf onbranch, nested include',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), `${baseConfig}[includeIf "onbranch:main"]\n\tpath = one.inc\n`);
        writeFileSync(join(root, '.git', 'one.inc'), '[include]\n\tpath = ../conf/two.inc\n');
        mkdirSync(join(root, 'conf'));
        writeFileSync(join(root, 'conf', 'two.inc'), `${text}\n`);
        return root;
      },
      gitShows: true,
    },
    {
      name: 'config.worktree',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), `${baseConfig}[extensions]\n\tworktreeConfig = true\n`);
        writeFileSync(join(root, '.git', 'config.worktree'), `${text}\n`);
        return root;
      },
      gitShows: false,
    },
    {
      name: 'linked worktree (commondir)',
      build: (root, text) => {
        gitDirectory(join(root, 'main', '.git'), `${baseConfig}${text}\n`);
        const admin = join(root, 'main', '.git', 'worktrees', 'wt');
        mkdirSync(admin, { recursive: true });
        writeFileSync(join(admin, 'HEAD'), 'ref: refs/heads/main\n');
        writeFileSync(join(admin, 'commondir'), '../..\n');
        writeFileSync(join(admin, 'gitdir'), `${join(root, 'wt', '.git')}\n`);
        mkdirSync(join(root, 'wt'));
        writeFileSync(join(root, 'wt', '.git'), `gitdir: ${admin}\n`);
        return join(root, 'wt');
      },
      gitShows: true,
    },
    {
      name: '.git file pointing elsewhere',
      // The store stays inside the working directory: one outside it is another repository's
      // history as far as efferent can tell, and asks (security-repository-config-paths.md).
      build: (root, text) => {
        mkdirSync(join(root, 'proj'));
        gitDirectory(join(root, 'proj', 'store', 'proj.git'), `${baseConfig}${text}\n`);
        writeFileSync(join(root, 'proj', '.git'), 'gitdir: store/proj.git\n');
        return join(root, 'proj');
      },
      gitShows: true,
    },
    {
      name: 'absorbed submodule (.git/modules)',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), baseConfig);
        gitDirectory(
          join(root, '.git', 'modules', 'lib'),
          `${baseConfig}\tworktree = ../../../lib\n${text}\n`,
        );
        return root;
      },
      gitShows: false,
    },
    {
      name: 'embedded bare repository (a checked-out directory)',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), baseConfig);
        gitDirectory(join(root, 'vendor', 'evil'), `[core]\n\tbare = true\n${text}\n`);
        return join(root, 'vendor', 'evil');
      },
      gitShows: true,
    },
    {
      name: 'subdirectory of the working tree',
      build: (root, text) => {
        gitDirectory(join(root, '.git'), `${baseConfig}${text}\n`);
        mkdirSync(join(root, 'src', 'deep'), { recursive: true });
        return join(root, 'src', 'deep');
      },
      gitShows: true,
    },
  ];

/** Read-only git invocations, spelled in the ways the analyser unwraps. */
const invocations = [
  'git status',
  'git log -p',
  'git --no-pager diff',
  'timeout 5 git show',
  'command git blame a.txt',
  'git describe --dirty',
  'git -P ls-remote origin',
  'nice git status --short && echo done',
];
const modes: PermissionMode[] = ['default', 'acceptEdits', 'auto', 'plan'];

let lab: GitLab;
let options: CheckOptions;
let counter = 0;

beforeAll(async () => {
  lab = makeGitLab();
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: lab.home, ...(shell ? { shell } : {}) };
});
afterAll(() => lab.cleanup(), 120_000);

function fixture(placement: (typeof placements)[number], text: string): string {
  counter += 1;
  const root = join(lab.base, `v${counter}`);
  mkdirSync(root);
  return placement.build(root, text);
}

async function decide(command: string, cwd: string, mode: PermissionMode, allow: string[] = []) {
  return checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd, mode, home: lab.home, rules: { allow } },
    options,
  );
}

describe('generated attack variants: key spelling × placement × invocation × mode', () => {
  let checked = 0;
  afterAll(() => {
    // Reported in the decision record; keeps the grid from shrinking unnoticed.
    expect(checked).toBe(attackSpellings.length * placements.length * (invocations.length + modes.length));
  });

  for (const placement of placements) {
    it(`every program-naming key asks when it comes from ${placement.name}`, async () => {
      for (const spelling of attackSpellings) {
        const cwd = fixture(placement, spelling.text);
        const grid = [
          ...invocations.map((command) => [command, 'default'] as const),
          ...modes.slice(1).map((mode, index) => [invocations[index + 1] as string, mode] as const),
        ];
        for (const [command, mode] of grid) {
          const result = await decide(command, cwd, mode);
          expect(result.behavior, `${placement.name} | ${spelling.text} | ${command} | ${mode}`).not.toBe(
            'allow',
          );
          expect(result.message ?? '').toMatch(/\.$/);
          checked += 1;
        }
        // An allow rule does not skip the inspection either.
        const ruled = await decide(`git -C ${cwd} status`, lab.base, 'default', [
          `Bash(git -C ${cwd} status)`,
        ]);
        expect(ruled.behavior, `rule | ${placement.name} | ${spelling.text}`).toBe('ask');
        checked += 1;
      }
    });
  }

  it('names the key and the file in the question', async () => {
    const cwd = fixture(placements[1] as (typeof placements)[number], `[core]\n\tfsmonitor = ${P}`);
    const result = await decide('git status', cwd, 'default');
    expect(result.message).toContain('core.fsmonitor');
    expect(result.message).toContain(join(cwd, 'settings.gitconfig'));
    expect(result.trace.some((step) => step.stage === 'safety' && step.outcome === 'ask')).toBe(true);
  });

  it('cannot be settled by the auto-mode classifier (only a person may approve)', async () => {
    const cwd = fixture(placements[0] as (typeof placements)[number], `[diff]\n\texternal = ${P}`);
    const result = await decide('git diff', cwd, 'auto');
    const step = result.trace.find((entry) => entry.stage === 'safety' && entry.outcome === 'ask');
    expect(step?.classifierApprovable).toBe(false);
  });
});

describe('generated benign variants stay allowed', () => {
  for (const placement of placements) {
    it(`inert configuration from ${placement.name} allows read-only git`, async () => {
      for (const text of inertSpellings) {
        const cwd = fixture(placement, text);
        for (const command of invocations) {
          for (const mode of command === 'git status'
            ? (['default', 'acceptEdits', 'auto'] as const)
            : (['default'] as const)) {
            const result = await decide(command, cwd, mode);
            expect(result.behavior, `${placement.name} | ${text} | ${command} | ${result.message}`).toBe(
              'allow',
            );
            expect(result.trace.some((step) => step.stage === 'safety' && step.outcome === 'allow')).toBe(
              true,
            );
          }
        }
        const ruled = await decide(`git -C ${cwd} status`, lab.base, 'default', [
          `Bash(git -C ${cwd} status)`,
        ]);
        expect(ruled.behavior, `rule | ${placement.name} | ${text} | ${ruled.message}`).toBe('allow');
      }
    });
  }
});

describe('differential: real git reads the generated configuration', () => {
  for (const placement of placements.filter((entry) => entry.gitShows)) {
    it(`git sees each key placed in ${placement.name}`, () => {
      for (const spelling of attackSpellings) {
        const cwd = fixture(placement, spelling.text);
        const listed = execFileSync('git', ['config', '--list'], { cwd, env: lab.env, encoding: 'utf8' });
        const keys = listed
          .split('\n')
          .map((line) =>
            line.slice(0, line.indexOf('=') === -1 ? line.length : line.indexOf('=')).toLowerCase(),
          );
        expect(keys, `${placement.name} | ${spelling.text}`).toContain(spelling.key.toLowerCase());
      }
    });
  }
});
