/**
 * Permission decision cost, side by side in one run: the same workload (everyday shell commands,
 * file reads and edits, URLs, plus the security corpus) decided against realistic rule sets of 10,
 * 1,000 and 10,000 rules (mostly `Bash(prefix *)`, Read/Edit path rules, some deny and ask rules);
 * a command of 10,000 pipes and a 1 MB `&&` chain; shell analysis alone against analysis plus the
 * decision. With `--legacy`, the engine from before the rule index (a frozen copy kept for the
 * equivalence run) decides the 1,000-rule workload too, for the ratio.
 * `npx tsx bench/permissions.ts [--json] [--iterations N] [--legacy]`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PermissionMode, PermissionTarget } from '../src/core/index.ts';
import {
  buildRules,
  createWorkspace,
  type EvaluationRequest,
  evaluatePermission,
  knownToolDeclarations,
  lexicalRealpath,
  loadDefaultShellAnalyzer,
  type RuleSet,
} from '../src/permissions/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const legacy = args.includes('--legacy');
const iterationsIndex = args.indexOf('--iterations');
const iterations = iterationsIndex === -1 ? 3000 : Number(args[iterationsIndex + 1]);

const shell = await loadDefaultShellAnalyzer();
if (!shell) throw new Error('The shell analyser did not load; run `npm run build:wasm` or reinstall.');
const workspace = createWorkspace({
  cwd: '/srv/proj',
  projectRoot: '/srv/proj',
  home: '/home/user',
  additionalDirectories: [],
  realpath: lexicalRealpath,
});
// Decisions are made without a disk: repository configuration is taken as inspected and harmless.
workspace.inspectGit = () => ({ ok: true, detail: 'not inspected in the benchmark' });

interface Call {
  tool: string;
  input: Record<string, unknown>;
  mode: PermissionMode;
}

const corpus = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'test', 'corpus', 'security-sample.json'), 'utf8'),
) as Array<Call & { cwd: string }>;
const corpusCalls: Call[] = corpus
  .filter((item) => item.cwd === '/srv/proj')
  .map(({ tool, input, mode }) => ({ tool, input, mode }));

/** What an agent does all day: builds, tests, git, reading and editing project files. */
const everydayCommands = [
  'git status',
  'git diff src/app.ts',
  'git log --oneline -10',
  'git add src/app.ts && git commit -m "fix parser"',
  'npm test',
  'npm run build',
  'npm run lint -- --fix',
  'ls -la src',
  'cat README.md',
  'grep -rn "TODO" src',
  'rg parseRule src/permissions',
  'head -50 src/index.ts',
  'wc -l src/*.ts',
  'find src -name "*.test.ts"',
  'make check',
  'cargo build --release',
  'docker compose ps',
  'kubectl get pods -n staging',
  'npx tsc --noEmit',
  'cd packages/web && npm test',
  'git stash && git pull --rebase && git stash pop',
  'node scripts/task7.js --dry-run',
  'python3 -m pytest tests/unit',
  'echo done > /tmp/build.log',
];
const everydayCalls: Call[] = [
  ...everydayCommands.map((command) => ({ tool: 'Bash', input: { command }, mode: 'default' as const })),
  { tool: 'Read', input: { file_path: '/srv/proj/src/app.ts' }, mode: 'default' },
  { tool: 'Read', input: { file_path: '/srv/proj/data/set17/rows.csv' }, mode: 'default' },
  { tool: 'Read', input: { file_path: '/home/user/.ssh/id_rsa' }, mode: 'default' },
  { tool: 'Edit', input: { file_path: '/srv/proj/src/module8/index.ts' }, mode: 'default' },
  { tool: 'Edit', input: { file_path: '/srv/proj/src/app.ts' }, mode: 'acceptEdits' },
  { tool: 'Write', input: { file_path: '/srv/proj/docs/notes.md' }, mode: 'default' },
  { tool: 'Grep', input: { path: '/srv/proj/src' }, mode: 'default' },
  { tool: 'Glob', input: { path: '/srv/proj' }, mode: 'default' },
  { tool: 'WebFetch', input: { url: 'https://site9.example.com/docs' }, mode: 'default' },
  { tool: 'WebFetch', input: { url: 'https://registry.npmjs.org/left-pad' }, mode: 'default' },
];
const calls = [...everydayCalls, ...everydayCalls, ...corpusCalls];
const commands = calls.filter((call) => call.tool === 'Bash').map((call) => String(call.input.command));

const programs = [
  'git',
  'npm',
  'make',
  'cargo',
  'docker',
  'kubectl',
  'python3',
  'node',
  'yarn',
  'pnpm',
  'go',
  'terraform',
  'helm',
  'aws',
  'gcloud',
  'bazel',
  'gradle',
  'mvn',
  'rustup',
  'pip',
  'poetry',
  'uv',
  'deno',
  'bun',
  'ruff',
  'eslint',
  'prettier',
  'jest',
  'vitest',
  'pytest',
  'ansible',
  'psql',
  'redis-cli',
  'ssh',
  'scp',
  'rsync',
  'curl',
  'wget',
  'jq',
  'sed',
];

/**
 * A realistic rule set: 60% `Bash(program sub… *)` allows over 40 programs, 15% Read/Edit allows on
 * project directories, 10% Bash denies, 5% Read denies, 5% Bash asks, 5% WebFetch domains.
 */
function ruleSet(size: number): RuleSet {
  const allow: string[] = [];
  const deny: string[] = [];
  const ask: string[] = [];
  for (let index = 0; allow.length + deny.length + ask.length < size; index++) {
    const word = programs[index % programs.length];
    const slot = index % 20;
    if (slot < 12) allow.push(`Bash(${word} task${index} *)`);
    else if (slot < 14) allow.push(`Read(./data/set${index}/**)`);
    else if (slot === 14) allow.push(`Edit(/src/module${index}/**)`);
    else if (slot < 17) deny.push(`Bash(${word} forbidden${index}:*)`);
    else if (slot === 17) deny.push(`Read(./secrets/s${index}/**)`);
    else if (slot === 18) ask.push(`Bash(${word} careful${index} *)`);
    else allow.push(`WebFetch(domain:site${index}.example.com)`);
  }
  // What every project has: the everyday commands allowed, secrets denied.
  allow.push('Bash(npm run *)', 'Bash(npm test)', 'Bash(git status)', 'Bash(git diff *)', 'Bash(make check)');
  deny.push('Read(~/.ssh/**)', 'Read(./.env)', 'Bash(git push --force *)', 'Bash(rm -rf *)');
  const origin = { source: 'projectSettings' as const, origin: 'bench', root: '/srv/proj' };
  return {
    allow: buildRules(allow, 'allow', origin).rules,
    deny: buildRules(deny, 'deny', origin).rules,
    ask: buildRules(ask, 'ask', origin).rules,
  };
}

type Evaluate = (request: EvaluationRequest) => { behavior: string };

/**
 * The decision as the pipeline makes it: the command was analysed once when the call was prepared,
 * so the decision rows reuse each command's analysis (the last rows add the parse back).
 */
const analyses = new Map<string, ReturnType<typeof shell.analyzeCommand>>();
const preparedShell: typeof shell = {
  ...shell,
  analyzeCommand: (command, options) => {
    let analysis = analyses.get(command);
    if (!analysis) {
      analysis = shell.analyzeCommand(command, options);
      analyses.set(command, analysis);
    }
    return analysis;
  },
};

function requestFor(call: Call, rules: RuleSet, analyser = preparedShell): EvaluationRequest {
  const declaration = knownToolDeclarations[call.tool];
  const target: PermissionTarget = declaration
    ? declaration.target(call.input, workspace.cwd)
    : { kind: 'none' };
  return {
    tool: { name: call.tool, aliases: [] },
    input: call.input,
    target,
    readOnly: declaration?.readOnly(call.input) ?? null,
    mode: call.mode,
    rules,
    workspace,
    shell: analyser,
  };
}

/** Wall-clock and CPU time per call in µs; on a shared machine the CPU time is the steadier one. */
interface Row {
  p50: number;
  p99: number;
  /** CPU time per call, averaged over the row (process-wide: garbage collection included). */
  cpuMean: number;
  cpuP50?: number;
  cpuP99?: number;
  perSecond: number;
}

function measure(run: (index: number) => void, count: number): Row {
  for (let index = 0; index < Math.min(200, count); index++) run(index);
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  const started = process.hrtime.bigint();
  // Reading the CPU clock costs a system call: per call only for short rows, else once per row.
  const perCall = count <= 50;
  const cpuStarted = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const cpuBefore = perCall ? process.cpuUsage() : undefined;
    const before = process.hrtime.bigint();
    run(index);
    samples.push(Number(process.hrtime.bigint() - before) / 1000);
    if (cpuBefore) {
      const cpu = process.cpuUsage(cpuBefore);
      cpuSamples.push(cpu.user + cpu.system);
    }
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuTotal = process.cpuUsage(cpuStarted);
  const at = (list: number[], quantile: number) => {
    list.sort((a, b) => a - b);
    return list[Math.min(list.length - 1, Math.floor(list.length * quantile))] ?? 0;
  };
  return {
    p50: at(samples, 0.5),
    p99: at(samples, 0.99),
    cpuMean: (cpuTotal.user + cpuTotal.system) / count,
    ...(perCall ? { cpuP50: at(cpuSamples, 0.5), cpuP99: at(cpuSamples, 0.99) } : {}),
    perSecond: count / elapsed,
  };
}

const decisions = (evaluate: Evaluate, rules: RuleSet, count = iterations) => {
  const requests = calls.map((call) => requestFor(call, rules));
  return measure((index) => evaluate(requests[index % requests.length] as EvaluationRequest), count);
};

const rules10 = ruleSet(10);
const rules1000 = ruleSet(1000);
const rules10000 = ruleSet(10_000);
// Warm the engine up (JIT, compiled rule indexes) before the first measured row: as many decisions
// per rule set as a row measures (every call of the workload many times over), so the rows measure
// the steady cost, not first compilations.
const warmUpDecisions = Math.max(iterations, calls.length * 3);
decisions(evaluatePermission, rules10, warmUpDecisions);
decisions(evaluatePermission, rules1000, warmUpDecisions);
decisions(evaluatePermission, rules10000, warmUpDecisions);
const decisions10 = decisions(evaluatePermission, rules10);
const decisions1000 = decisions(evaluatePermission, rules1000);
const decisions10000 = decisions(evaluatePermission, rules10000);

// Commands past the limits: only deny checks run on every piece, then the call asks.
const pipes = Array.from({ length: 10_000 }, (_, index) => `grep -n x${index}`).join(' | ');
const chainPiece = 'echo 0123456789 && ';
const chain = `${chainPiece.repeat(Math.ceil(1_000_000 / chainPiece.length))}true`;
const hugeCommand = (command: string, rules: RuleSet) =>
  measure(
    () => evaluatePermission(requestFor({ tool: 'Bash', input: { command }, mode: 'default' }, rules, shell)),
    5,
  );
const pipes1000 = hugeCommand(pipes, rules1000);
const chain1000 = hugeCommand(chain, rules1000);
const chain10000 = hugeCommand(chain, rules10000);

const analysisOnly = measure(
  (index) =>
    shell.analyzeCommand(commands[index % commands.length] as string, {
      cwd: workspace.cwd,
      home: workspace.home,
    }),
  iterations,
);
const bashRequests = commands.map((command) =>
  requestFor({ tool: 'Bash', input: { command }, mode: 'default' }, rules1000, shell),
);
const analysisAndDecision = measure(
  (index) => evaluatePermission(bashRequests[index % bashRequests.length] as EvaluationRequest),
  iterations,
);

let legacy1000: Row | undefined;
if (legacy) {
  const frozen = await import('../test/equivalence/legacy-engine/resolve/evaluate-permission.ts');
  legacy1000 = decisions(frozen.evaluatePermission as Evaluate, rules1000, Math.min(iterations, 1000));
}

const report = {
  iterations,
  workload: { calls: calls.length, bashCommands: commands.length },
  decisionsWith10Rules: decisions10,
  decisionsWith1000Rules: decisions1000,
  decisionsWith10000Rules: decisions10000,
  ratio1000To10Rules: decisions1000.p50 / decisions10.p50,
  ratio10000To1000Rules: decisions10000.p50 / decisions1000.p50,
  pipes10000With1000Rules: pipes1000,
  chain1MBWith1000Rules: chain1000,
  chain1MBWith10000Rules: chain10000,
  shellAnalysisOnly: analysisOnly,
  shellAnalysisPlusDecision1000Rules: analysisAndDecision,
  ratioDecisionToAnalysis: analysisAndDecision.p50 / analysisOnly.p50,
  ...(legacy1000
    ? {
        legacyDecisionsWith1000Rules: legacy1000,
        ratioLegacyToIndexed1000: legacy1000.p50 / decisions1000.p50,
      }
    : {}),
};

if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const line = (label: string, value: Row) =>
    `${label.padEnd(42)} p50 ${value.p50.toFixed(1).padStart(9)} µs  p99 ${value.p99.toFixed(1).padStart(9)} µs  cpu ${value.cpuP50 === undefined ? `mean ${value.cpuMean.toFixed(0).padStart(7)}` : `p50 ${value.cpuP50.toFixed(0).padStart(8)}`} µs  ${Math.round(value.perSecond).toString().padStart(7)} /s`;
  process.stdout.write(
    [
      `${iterations} decisions per row (wall-clock and CPU time per call) after ${warmUpDecisions} warm-up decisions per rule set; workload: ${calls.length} calls (${commands.length} shell commands), everyday and corpus`,
      line('decision (call prepared), 10 rules', decisions10),
      line('decision (call prepared), 1,000 rules', decisions1000),
      line('decision (call prepared), 10,000 rules', decisions10000),
      `  1,000 rules cost ${report.ratio1000To10Rules.toFixed(2)}× the 10-rule decision, 10,000 rules ${report.ratio10000To1000Rules.toFixed(2)}× the 1,000-rule one (p50)`,
      ...(legacy1000
        ? [
            line('same, engine before the index', legacy1000),
            `  the index is ${(legacy1000.p50 / decisions1000.p50).toFixed(1)}× faster at 1,000 rules (p50)`,
          ]
        : []),
      line('10,000 pipes, 1,000 rules', pipes1000),
      line('1 MB && chain, 1,000 rules', chain1000),
      line('1 MB && chain, 10,000 rules', chain10000),
      line('shell analysis only', analysisOnly),
      line('shell analysis + decision, 1,000 rules', analysisAndDecision),
      `  the full Bash decision costs ${report.ratioDecisionToAnalysis.toFixed(2)}× the analysis alone (p50)`,
      '',
    ].join('\n'),
  );
}
