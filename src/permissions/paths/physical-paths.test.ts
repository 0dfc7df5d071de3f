import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAllBaseTools } from '../../registry/index.ts';
import { type CheckOptions, checkPermissionCase } from '../check-case.ts';
import { loadDefaultShellAnalyzer } from '../default-shell.ts';
import {
  canonicalizePath,
  fsRealpath,
  isInsideDirectory,
  isUnresolvable,
  lexicalRealpath,
} from './canonical-path.ts';
import { fsLinkScan, linkScanLimits } from './link-scan.ts';

/*
 * Paths are resolved as the kernel resolves them, and the engine never allows a read whose kernel
 * target is outside the project or denied. Fixtures are real symlinks in a temporary "repository";
 * the oracle is the kernel itself (realpath(3) on the unnormalised path, and real bash for `cd`).
 */

let root: string;
let project: string;
let outside: string;
let home: string;
let options: CheckOptions;

/** Links committed in the repository, by name: what they point to (as `ln -s` is given it). */
const linkShapes: Record<string, () => string> = {
  self: () => '.',
  up: () => '..',
  etc: () => outside,
  deep: () => 'sub/deep',
  chain: () => 'deep',
  abs: () => join(project, 'sub'),
  deepup: () => 'sub/deep/..',
  dangling: () => 'missing/dir',
};

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-physical-')));
  project = join(root, 'srv', 'proj');
  outside = join(root, 'etc');
  home = join(root, 'home', 'user');
  for (const directory of [
    join(project, 'sub', 'deep', 'deeper'),
    outside,
    home,
    join(project, 'tree', 'inner'),
  ])
    mkdirSync(directory, { recursive: true });
  writeFileSync(join(project, 'secret'), 'project secret');
  writeFileSync(join(project, 'README'), 'readme');
  writeFileSync(join(project, 'sub', 'x'), 'x');
  writeFileSync(join(project, 'sub', 'deep', 'x'), 'deep x');
  writeFileSync(join(outside, 'passwd'), 'root:x:0:0');
  writeFileSync(join(outside, 'secret'), 'outside secret');
  writeFileSync(join(root, 'srv', 'secret'), 'srv secret');
  for (const [name, target] of Object.entries(linkShapes)) symlinkSync(target(), join(project, name));
  writeFileSync(join(project, 'tree', 'inner', 'a.txt'), 'a');
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: home, ...(shell ? { shell } : {}) };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The kernel's answer for an unnormalised path: where it really is, or undefined when it does not exist. */
function kernelTarget(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** Spellings of a path through a link: the shapes the class was reported with, and neighbours. */
const spellings = (link: string) => [
  link,
  `${link}/`,
  `${link}/.`,
  `./${link}`,
  `${link}/..`,
  `${link}/../`,
  `${link}/../..`,
  `./${link}//..`,
  `${link}/./..`,
  `${link}/../secret`,
  `${link}/../../secret`,
  `${link}/../etc/passwd`,
  `${link}/../sub/x`,
  `${link}/../${link}/..`,
  `sub/../${link}/..`,
  `${link}/x`,
  `${link}/passwd`,
  `${link}/deep/x`,
];

describe('canonicalizePath walks components as the kernel does', () => {
  const cases = () =>
    Object.keys(linkShapes).flatMap((link) =>
      spellings(link).flatMap((spelling) => [spelling, `${project}/${spelling}`]),
    );

  it('agrees with realpath(3) on every existing path, or asks because the text and the kernel disagree', () => {
    let compared = 0;
    let ambiguous = 0;
    for (const spelling of cases()) {
      const raw = spelling.startsWith('/') ? spelling : `${project}/${spelling}`;
      const result = canonicalizePath(spelling, { cwd: project, home }, fsRealpath);
      const kernel = kernelTarget(raw);
      const folded = kernelTarget(posix.normalize(raw));
      if (isUnresolvable(result)) {
        // Asked about only when folding `..` first really leads somewhere else.
        expect(result.ambiguous, spelling).toBe(true);
        expect(kernel === undefined && folded === undefined ? false : kernel !== folded, spelling).toBe(true);
        ambiguous++;
        continue;
      }
      expect(result.lexical).toBe(posix.normalize(raw).replace(/(.)\/+$/, '$1'));
      if (kernel !== undefined) {
        expect(result.physical, spelling).toBe(kernel);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(80);
    expect(ambiguous).toBeGreaterThan(20);
  });

  it('keeps the lexical stand-in independent of the disk', () => {
    const result = canonicalizePath(
      'etc/../secret',
      { cwd: '/srv/proj', home: '/home/user' },
      lexicalRealpath,
    );
    expect(result).toEqual({ lexical: '/srv/proj/secret', physical: '/srv/proj/secret' });
  });

  it('resolves `..` in a dangling link target physically', () => {
    // hop -> deep/../missing: deep is sub/deep, so `..` lands in sub, not in the project.
    symlinkSync('deep/../missing', join(project, 'hop'));
    try {
      expect(fsRealpath(join(project, 'hop'))).toBe(join(project, 'sub', 'missing'));
    } finally {
      rmSync(join(project, 'hop'));
    }
  });
});

type Expectation = 'allow' | 'not-allow';

async function decide(command: string, deny: string[] = [], cwd = project): Promise<string> {
  const result = await checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd, mode: 'default', home, rules: { deny } },
    options,
  );
  if (result.behavior !== 'allow') expect(result.message ?? '', command).toMatch(/\.$/);
  return result.behavior;
}

/** The deny rules a variant is checked under. */
const ruleSets = (): Array<{ name: string; deny: string[]; denied: (target: string) => boolean }> => [
  { name: 'no rules', deny: [], denied: () => false },
  {
    name: 'Read(./secret)',
    deny: ['Read(./secret)'],
    denied: (target) => target === join(project, 'secret'),
  },
  {
    name: 'Read(outside)',
    deny: [`Read(/${outside}/**)`],
    denied: (target) => isInsideDirectory(target, outside),
  },
];

describe('the engine never allows a read whose kernel target is outside or denied', () => {
  const commands = ['cat', 'grep -r x'];

  it('over links x spellings x commands x rules', async () => {
    let variants = 0;
    let allowed = 0;
    for (const link of Object.keys(linkShapes))
      for (const spelling of spellings(link))
        for (const command of commands)
          for (const rules of ruleSets()) {
            const raw = `${project}/${spelling}`;
            const kernel = kernelTarget(raw);
            const lexical = posix.normalize(raw);
            const behavior = await decide(`${command} ${spelling}`, rules.deny);
            variants++;
            const unsafe =
              kernel === undefined
                ? // A path that does not exist yet may be created; judge where the kernel would go.
                  !isInsideDirectory(canonicalTarget(raw), project) || rules.denied(canonicalTarget(raw))
                : !isInsideDirectory(kernel, project) ||
                  rules.denied(kernel) ||
                  (command.startsWith('grep -r') &&
                    rules.denied(join(project, 'secret')) &&
                    isInsideDirectory(join(project, 'secret'), kernel));
            const expectation: Expectation = unsafe ? 'not-allow' : 'allow';
            if (expectation === 'not-allow')
              expect(behavior, `${command} ${spelling} [${rules.name}] → ${kernel ?? '(missing)'}`).not.toBe(
                'allow',
              );
            if (behavior === 'allow') allowed++;
            // Benign neighbours: no `..` after a link and everything inside stays allowed.
            const holdsDenied =
              rules.deny.length > 0 &&
              kernel !== undefined &&
              isInsideDirectory(join(project, 'secret'), kernel);
            if (
              !spelling.includes('..') &&
              !unsafe &&
              !holdsDenied &&
              kernel !== undefined &&
              isInsideDirectory(lexical, project)
            )
              expect(behavior, `${command} ${spelling} [${rules.name}]`).toBe('allow');
          }
    expect(variants).toBe(Object.keys(linkShapes).length * spellings('x').length * commands.length * 3);
    expect(allowed).toBeGreaterThan(100);
  }, 300_000);
});

/** Where the kernel would put a path that does not exist: its existing prefix resolved, the rest appended. */
function canonicalTarget(raw: string): string {
  const result = canonicalizePath(raw, { cwd: project, home }, fsRealpath);
  return isUnresolvable(result) ? '/' : result.physical;
}

/** Real bash's answer: the directory `cd` ends in and where a relative path then leads. */
function bashTarget(cd: string, path: string): string | undefined {
  try {
    const output = execFileSync(
      'bash',
      ['--norc', '--noprofile', '-c', `${cd} >/dev/null 2>&1 || exit 3; realpath -m -- "$1"`, 'bash', path],
      {
        cwd: project,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PWD: project, HOME: home },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    return output.trim();
  } catch {
    return undefined;
  }
}

describe('cd: the engine resolves later commands from where bash really is', () => {
  const cds = (link: string) => [
    `cd ${link}`,
    `cd -P ${link}`,
    `cd -L ${link}`,
    `cd ${link}/..`,
    `cd -P ${link}/..`,
    `cd -L ${link}/..`,
    `cd ${link}/../sub`,
    `cd -P ${link}/../sub`,
    `cd ./${link}//..`,
    `pushd ${link}/..`,
    `cd sub && cd ${link}`,
  ];
  const reads = ['secret', '../secret', 'passwd', '../etc/passwd'];
  const cdLinks = ['self', 'up', 'etc', 'deep', 'chain'];

  it('over links x cd forms x reads, checked against real bash', async () => {
    let variants = 0;
    for (const link of cdLinks)
      for (const cd of cds(link))
        for (const read of reads)
          for (const rules of ruleSets().slice(1, 2)) {
            const target = bashTarget(cd, read);
            if (target === undefined) continue;
            const behavior = await decide(`${cd} && cat ${read}`, rules.deny);
            variants++;
            if (!isInsideDirectory(target, project) || rules.denied(target))
              expect(behavior, `${cd} && cat ${read} [${rules.name}] → ${target}`).not.toBe('allow');
          }
    expect(variants).toBeGreaterThan(150);
  }, 300_000);

  it('keeps everyday directory changes allowed', async () => {
    for (const command of [
      'cd sub && cat x',
      'cd sub/deep && cat ../x',
      'cd deep && cat x',
      'cd sub && ls',
      'pushd sub && cat x',
    ])
      expect(await decide(command), command).toBe('allow');
  });
});

describe('recursive readers that follow links read the links’ targets', () => {
  const following = [
    'grep -R x tree',
    'grep --dereference-recursive x tree',
    'grep -rR x tree',
    'rg -L x tree',
    'rg --follow x tree',
    'diff -r tree sub',
    'find -L tree',
    'find tree -follow',
    'du -L tree',
    'ls -RL tree',
    'tree -l tree',
    'cp -rL tree sub/copy',
    'tar -chf /dev/null tree',
    'zip -r /dev/null tree',
    'awk 1 tree',
  ];
  const staying = [
    'grep -r x tree',
    'rg x tree',
    'find tree',
    'du -sh tree',
    'ls -R tree',
    'tree tree',
    'git status',
  ];
  const targets = (): Array<{ name: string; target: () => string; deny: string[]; files: boolean }> => [
    { name: 'outside directory', target: () => outside, deny: [], files: true },
    { name: 'outside file', target: () => join(outside, 'passwd'), deny: [], files: false },
    { name: 'denied file', target: () => join(project, 'secret'), deny: ['Read(./secret)'], files: false },
    { name: 'chain to outside', target: () => join(project, 'etc'), deny: [], files: true },
    { name: 'the parent', target: () => '../..', deny: [], files: true },
  ];

  it('over commands x link targets (ask or deny), and non-following readers stay allowed', async () => {
    let variants = 0;
    for (const shape of targets()) {
      const link = join(project, 'tree', 'inner', 'link');
      symlinkSync(shape.target(), link);
      try {
        for (const command of following) {
          const namesOnly = /^(find|du|ls|tree) /.test(command);
          const behavior = await decide(command, shape.deny);
          variants++;
          // A names-only walk learns nothing from a link to a file, unless a rule denies the file.
          if (namesOnly && !shape.files && shape.deny.length === 0) continue;
          expect(behavior, `${command} with ${shape.name}`).not.toBe('allow');
        }
        for (const command of staying) {
          if (shape.deny.length > 0) continue;
          expect(await decide(command, shape.deny), `${command} with ${shape.name}`).toBe('allow');
          variants++;
        }
      } finally {
        rmSync(link);
      }
    }
    expect(variants).toBeGreaterThan(90);
    // Without escaping links the same commands read only the project.
    for (const command of ['grep -R x tree', 'rg -L x tree', 'find -L tree', 'diff -r tree sub'])
      expect(await decide(command), command).toBe('allow');
  }, 300_000);

  it('asks when the tree is too deep to look at every link', async () => {
    const big = join(project, 'big');
    mkdirSync(join(big, ...Array.from({ length: linkScanLimits.depth + 1 }, (_, index) => `d${index}`)), {
      recursive: true,
    });
    try {
      expect(fsLinkScan(big, [project])?.complete).toBe(false);
      expect(await decide('grep -R x big')).toBe('ask');
      expect(await decide('grep -R x big', ['Read(./secret)'])).toBe('ask');
      expect(await decide('grep -r x big')).toBe('allow');
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });
});
