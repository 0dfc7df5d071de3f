/**
 * Permission decision cost, side by side in one run: the same mixed workload (shell commands, file
 * paths, URLs) decided against 10 rules and against 1,000 rules, and shell analysis alone against
 * analysis plus the full decision.
 * `npx tsx bench/permissions.ts [--json] [--iterations N]`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PermissionMode, PermissionTarget } from '../src/core/index.ts';
import {
  buildRules,
  createWorkspace,
  evaluatePermission,
  knownToolDeclarations,
  lexicalRealpath,
  loadDefaultShellAnalyzer,
  type RuleSet,
} from '../src/permissions/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const iterationsIndex = args.indexOf('--iterations');
const iterations = iterationsIndex === -1 ? 3000 : Number(args[iterationsIndex + 1]);

const shell = await loadDefaultShellAnalyzer();
const workspace = createWorkspace({
  cwd: '/srv/proj',
  projectRoot: '/srv/proj',
  home: '/home/user',
  additionalDirectories: [],
  realpath: lexicalRealpath,
});

interface Call {
  tool: string;
  input: Record<string, unknown>;
  mode: PermissionMode;
}
const corpus = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'test', 'corpus', 'security-sample.json'), 'utf8'),
) as Array<Call & { cwd: string }>;
const calls: Call[] = corpus
  .filter((item) => item.cwd === '/srv/proj')
  .map(({ tool, input, mode }) => ({ tool, input, mode }));
const commands = calls.filter((call) => call.tool === 'Bash').map((call) => String(call.input.command));

function ruleSet(size: number): RuleSet {
  const words = ['git', 'npm', 'make', 'cargo', 'docker', 'kubectl', 'python', 'node', 'yarn', 'pnpm'];
  const allow: string[] = [];
  const deny: string[] = [];
  const ask: string[] = [];
  for (let index = 0; allow.length + deny.length + ask.length < size; index++) {
    const word = words[index % words.length];
    const slot = index % 10;
    if (slot < 4) allow.push(`Bash(${word} task${index} *)`);
    else if (slot < 6) deny.push(`Bash(${word} forbidden${index}:*)`);
    else if (slot === 6) ask.push(`Bash(${word} careful${index} *)`);
    else if (slot === 7) (index % 20 < 10 ? deny : allow).push(`Read(./data/set${index}/**)`);
    else if (slot === 8) allow.push(`Edit(/src/module${index}/**)`);
    else allow.push(`WebFetch(domain:site${index}.example.com)`);
  }
  const origin = { source: 'projectSettings' as const, origin: 'bench', root: '/srv/proj' };
  return {
    allow: buildRules(allow, 'allow', origin).rules,
    deny: buildRules(deny, 'deny', origin).rules,
    ask: buildRules(ask, 'ask', origin).rules,
  };
}

function decide(call: Call, rules: RuleSet): string {
  const declaration = knownToolDeclarations[call.tool];
  const target: PermissionTarget = declaration
    ? declaration.target(call.input, workspace.cwd)
    : { kind: 'none' };
  return evaluatePermission({
    tool: { name: call.tool, aliases: [] },
    input: call.input,
    target,
    readOnly: declaration?.readOnly(call.input) ?? null,
    mode: call.mode,
    rules,
    workspace,
    shell,
  }).behavior;
}

function measure(
  run: (index: number) => void,
  count: number,
): { p50: number; p99: number; perSecond: number } {
  for (let index = 0; index < Math.min(200, count); index++) run(index);
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index++) {
    const before = process.hrtime.bigint();
    run(index);
    samples.push(Number(process.hrtime.bigint() - before) / 1000);
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  samples.sort((a, b) => a - b);
  const at = (quantile: number) =>
    samples[Math.min(samples.length - 1, Math.floor(samples.length * quantile))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), perSecond: count / elapsed };
}

const small = ruleSet(10);
const large = ruleSet(1000);
const decisions10 = measure((index) => decide(calls[index % calls.length] as Call, small), iterations);
const decisions1000 = measure((index) => decide(calls[index % calls.length] as Call, large), iterations);
const analysisOnly = measure(
  (index) =>
    shell.analyzeCommand(commands[index % commands.length] as string, {
      cwd: workspace.cwd,
      home: workspace.home,
    }),
  iterations,
);
const analysisAndDecision = measure(
  (index) =>
    decide({ tool: 'Bash', input: { command: commands[index % commands.length] }, mode: 'default' }, large),
  iterations,
);

const report = {
  iterations,
  workload: { calls: calls.length, bashCommands: commands.length },
  decisionsWith10Rules: decisions10,
  decisionsWith1000Rules: decisions1000,
  ratio1000To10Rules: decisions1000.p50 / decisions10.p50,
  shellAnalysisOnly: analysisOnly,
  shellAnalysisPlusDecision1000Rules: analysisAndDecision,
  ratioDecisionToAnalysis: analysisAndDecision.p50 / analysisOnly.p50,
};

if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const line = (label: string, value: { p50: number; p99: number; perSecond: number }) =>
    `${label.padEnd(44)} p50 ${value.p50.toFixed(1).padStart(8)} µs  p99 ${value.p99.toFixed(1).padStart(8)} µs  ${Math.round(value.perSecond).toString().padStart(8)} /s`;
  process.stdout.write(
    [
      `${iterations} decisions per row; workload: ${calls.length} corpus calls (${commands.length} shell commands)`,
      line('decision, 10 rules', decisions10),
      line('decision, 1,000 rules', decisions1000),
      `  1,000 rules cost ${report.ratio1000To10Rules.toFixed(2)}× the 10-rule decision (p50)`,
      line('shell analysis only', analysisOnly),
      line('shell analysis + decision, 1,000 rules', analysisAndDecision),
      `  the full Bash decision costs ${report.ratioDecisionToAnalysis.toFixed(2)}× the analysis alone (p50)`,
      '',
    ].join('\n'),
  );
}
