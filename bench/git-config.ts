/**
 * The cost of inspecting repository configuration before a git command is allowed, side by side
 * with the same decision without the inspection, on a real repository (a clone-like `.git/config`
 * with an include, a linked worktree and an absorbed submodule). Cached = file contents parsed once
 * (each call still stats every file); cold = the parse cache cleared before every call.
 * `npx tsx bench/git-config.ts [--json] [--iterations N]`
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createWorkspace,
  evaluatePermission,
  knownToolDeclarations,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { clearConfigCache } from '../src/permissions/git-config/config-file.ts';
import { inspectGitInvocation } from '../src/permissions/git-config/inspect-git.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const iterationsIndex = args.indexOf('--iterations');
const iterations = iterationsIndex === -1 ? 3000 : Number(args[iterationsIndex + 1]);

const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-gitcfg-')));
const root = join(base, 'proj');
function gitDirectory(path: string, config: string): void {
  mkdirSync(join(path, 'objects'), { recursive: true });
  mkdirSync(join(path, 'refs', 'heads'), { recursive: true });
  mkdirSync(join(path, 'hooks'), { recursive: true });
  writeFileSync(join(path, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(path, 'config'), config);
}
gitDirectory(
  join(root, '.git'),
  '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n' +
    '[remote "origin"]\n\turl = git@github.com:example/proj.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' +
    '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[include]\n\tpath = ../team.gitconfig\n',
);
writeFileSync(join(root, 'team.gitconfig'), '[pull]\n\trebase = true\n[core]\n\thooksPath = .husky/_\n');
gitDirectory(
  join(root, '.git', 'modules', 'lib'),
  '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../lib\n',
);
mkdirSync(join(root, 'src', 'app'), { recursive: true });

const shell = await loadDefaultShellAnalyzer();
const commands = [
  'git status',
  'git log -p -3',
  'git diff --stat',
  'timeout 5 git show HEAD',
  'git blame src/a.ts',
];
const noInspection = () => ({ ok: true as const, detail: 'not inspected' });

function decide(command: string, cwd: string, inspect: boolean): string {
  const workspace = createWorkspace({
    cwd,
    projectRoot: root,
    home: join(base, 'home'),
    additionalDirectories: [],
    ...(inspect ? {} : { inspectGit: noInspection }),
  });
  const input = { command };
  const declaration = knownToolDeclarations.Bash;
  return evaluatePermission({
    tool: { name: 'Bash', aliases: [] },
    input,
    target: declaration ? declaration.target(input, cwd) : { kind: 'none' },
    readOnly: null,
    mode: 'default',
    rules: { allow: [], deny: [], ask: [] },
    workspace,
    shell,
  }).behavior;
}

function measure(run: (index: number) => void, count: number) {
  for (let index = 0; index < Math.min(200, count); index++) run(index);
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const before = process.hrtime.bigint();
    run(index);
    samples.push(Number(process.hrtime.bigint() - before) / 1000);
  }
  samples.sort((a, b) => a - b);
  const at = (quantile: number) =>
    samples[Math.min(samples.length - 1, Math.floor(samples.length * quantile))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

const where = (index: number) => (index % 2 === 0 ? root : join(root, 'src', 'app'));
const command = (index: number) => commands[index % commands.length] as string;
if (decide('git status', root, true) !== 'allow') throw new Error('the bench repository should be inert');

const plain = measure((index) => decide(command(index), where(index), false), iterations);
const inspected = measure((index) => decide(command(index), where(index), true), iterations);
const inspectionCached = measure(
  (index) => inspectGitInvocation({ argv: ['git', 'status'], envVars: [], cwd: where(index), home: base }),
  iterations,
);
const inspectionCold = measure((index) => {
  clearConfigCache();
  inspectGitInvocation({ argv: ['git', 'status'], envVars: [], cwd: where(index), home: base });
}, iterations);
rmSync(base, { recursive: true, force: true });

const report = {
  iterations,
  decisionWithoutInspection: plain,
  decisionWithInspection: inspected,
  inspectionCost: { p50: inspected.p50 - plain.p50, p99: inspected.p99 - plain.p99 },
  inspectionAloneCached: inspectionCached,
  inspectionAloneCold: inspectionCold,
};
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const line = (label: string, value: { p50: number; p99: number }) =>
    `${label.padEnd(44)} p50 ${value.p50.toFixed(1).padStart(8)} µs  p99 ${value.p99.toFixed(1).padStart(8)} µs`;
  process.stdout.write(
    [
      `${iterations} git commands per row (repository with an include and a submodule; target < 2,000 µs)`,
      line('Bash decision, inspection stubbed out', plain),
      line('Bash decision with the inspection', inspected),
      line('  difference (the check per git command)', report.inspectionCost),
      line('inspection alone, parse cache warm', inspectionCached),
      line('inspection alone, parse cache cleared', inspectionCold),
      '',
    ].join('\n'),
  );
}
