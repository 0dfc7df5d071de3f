/**
 * Shell analysis throughput: commands per second over a realistic mix (the security sample's
 * commands plus generated pipelines and compound lines), for analyzeCommand and for the plain
 * parse alone, measured side by side in one run. Also: analyzeCommand over the permission corpus's
 * Bash commands (the permissions bench's "shell analysis only" workload), and what one Bash call asks
 * of the analyser (read-only, the parse, the decision's analysis) answered separately against one
 * prepared analysis.
 *
 * Each rate is wall time over all rounds; the permission corpus also gets the median over rounds of
 * CPU time per round, which a busy machine moves far less. With `--against DIR` (another checkout of
 * efferent, e.g. a `git worktree` of main) both analysers run over the permission corpus and the mix,
 * round after round in one process, and the ratios are printed.
 *
 *   npx tsx bench/shell.ts [--json] [--against DIR]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  analyzeCommand,
  isReadOnlyCommand,
  loadShellParser,
  parseForSecurity,
  prepareShellCommand,
} from '../src/shell/index.ts';

const corpus = (
  JSON.parse(
    readFileSync(new URL('../src/shell/fixtures/security-sample-bash.json', import.meta.url), 'utf8'),
  ) as Array<{
    command: string;
  }>
).map((entry) => entry.command);

const stages = [
  'git status --short',
  'grep -rn "TODO" src',
  "sed -n '1,20p' README.md",
  'find . -name "*.ts" -type f',
  'sort -u',
  'head -n 50',
  'wc -l',
  "jq '.dependencies'",
  'rg -n foo src',
  'timeout 5 nice -n 2 ls -la',
];

/** Deterministic pseudo-random mix, so runs are comparable. */
function generated(count: number): string[] {
  let seed = 42;
  const next = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  const lines: string[] = [];
  for (let index = 0; index < count; index++) {
    const length = 1 + (next() % 5);
    const parts = Array.from({ length }, () => stages[next() % stages.length] ?? 'ls');
    const separator = [' | ', ' && ', '; '][next() % 3] ?? ' | ';
    lines.push(parts.join(separator) + (next() % 4 === 0 ? ' 2>/dev/null' : ''));
  }
  return lines;
}

/**
 * Runs every contender over the whole mix in turn, round after round, so machine noise hits them
 * alike and the ratios stay meaningful on a busy machine.
 */
function measureInterleaved(
  commands: readonly string[],
  contenders: Record<string, (command: string) => unknown>,
  totalMs: number,
): Record<string, number> {
  const elapsed: Record<string, number> = {};
  let rounds = 0;
  const start = performance.now();
  while (performance.now() - start < totalMs) {
    for (const [name, run] of Object.entries(contenders)) {
      const roundStart = performance.now();
      for (const command of commands) run(command);
      elapsed[name] = (elapsed[name] ?? 0) + (performance.now() - roundStart);
    }
    rounds++;
  }
  const perSecond: Record<string, number> = {};
  for (const [name, milliseconds] of Object.entries(elapsed))
    perSecond[name] = (rounds * commands.length) / (milliseconds / 1000);
  return perSecond;
}

/**
 * As {@link measureInterleaved}, but each round is timed in CPU time (`process.cpuUsage`) and the
 * rate comes from the median round: time the process spends waiting for a core, and rounds a
 * neighbour's burst slowed down, drop out.
 */
function measureCpuMedian(
  commands: readonly string[],
  contenders: Record<string, (command: string) => unknown>,
  totalMs: number,
): Record<string, number> {
  const rounds: Record<string, number[]> = {};
  const start = performance.now();
  while (performance.now() - start < totalMs) {
    for (const [name, run] of Object.entries(contenders)) {
      const before = process.cpuUsage();
      for (const command of commands) run(command);
      const used = process.cpuUsage(before);
      const times = rounds[name] ?? [];
      times.push((used.user + used.system) / 1000);
      rounds[name] = times;
    }
  }
  const perSecond: Record<string, number> = {};
  for (const [name, milliseconds] of Object.entries(rounds)) {
    milliseconds.sort((left, right) => left - right);
    const median = milliseconds[Math.floor(milliseconds.length / 2)] ?? Number.NaN;
    perSecond[name] = commands.length / (median / 1000);
  }
  return perSecond;
}

await loadShellParser();
const mix = corpus.concat(generated(400));
const contenders = {
  analyze: (command: string) => analyzeCommand(command, { cwd: '/srv/proj', home: '/home/user' }),
  parse: (command: string) => parseForSecurity(command),
  readOnly: (command: string) => isReadOnlyCommand(command, { cwd: '/srv/proj' }),
};
// Warm up the JIT and the wasm tiers before measuring.
measureInterleaved(mix, contenders, 500);
const rates = measureInterleaved(mix, contenders, 4000);
const analyzePerSecond = rates['analyze'] ?? 0;
const parsePerSecond = rates['parse'] ?? 0;
const readOnlyPerSecond = rates['readOnly'] ?? 0;
const averageLength = mix.reduce((sum, command) => sum + command.length, 0) / mix.length;

const permissionCorpus = (
  JSON.parse(readFileSync(new URL('../test/corpus/security-sample.json', import.meta.url), 'utf8')) as Array<{
    tool: string;
    cwd: string;
    input: { command?: unknown };
  }>
)
  .filter(
    (call) => call.tool === 'Bash' && call.cwd === '/srv/proj' && typeof call.input.command === 'string',
  )
  .map((call) => String(call.input.command));
const options = { cwd: '/srv/proj', home: '/home/user' };
const corpusRates = measureInterleaved(
  permissionCorpus,
  {
    analyzeCorpus: (command: string) => analyzeCommand(command, options),
    // One Bash call's questions: read-only (scheduling, git safety), the parse (sed preview, run), the decision.
    separately: (command: string) => {
      isReadOnlyCommand(command, { cwd: options.cwd });
      parseForSecurity(command);
      return analyzeCommand(command, options);
    },
    prepared: (command: string) => {
      const prepared = prepareShellCommand(command, options);
      prepared.isReadOnly();
      prepared.parse();
      return prepared.analysisFor(options.cwd, options.home);
    },
  },
  3000,
);

const corpusCpuRates = measureCpuMedian(
  permissionCorpus,
  { analyzeCorpus: (command: string) => analyzeCommand(command, options) },
  3000,
);

const againstAt = process.argv.indexOf('--against');
const againstDirectory = againstAt === -1 ? undefined : process.argv[againstAt + 1];
const against = againstDirectory === undefined ? undefined : await compareWith(resolve(againstDirectory));

/** This checkout's analyser against the one in `directory`, interleaved round by round. */
async function compareWith(directory: string) {
  type ShellModule = { analyzeCommand: typeof analyzeCommand; loadShellParser: typeof loadShellParser };
  const other = (await import(pathToFileURL(join(directory, 'src/shell/index.ts')).href)) as ShellModule;
  await other.loadShellParser();
  const contenders = {
    this: (command: string) => analyzeCommand(command, options),
    other: (command: string) => other.analyzeCommand(command, options),
  };
  measureInterleaved(permissionCorpus, contenders, 1000);
  const corpusCpu = measureCpuMedian(permissionCorpus, contenders, 8000);
  const corpusWall = measureInterleaved(permissionCorpus, contenders, 4000);
  const mixWall = measureInterleaved(mix, contenders, 4000);
  const pair = (rates: Record<string, number>) => ({
    this: Math.round(rates['this'] ?? 0),
    other: Math.round(rates['other'] ?? 0),
    ratio: Number(((rates['this'] ?? 0) / (rates['other'] ?? 1)).toFixed(3)),
  });
  return {
    directory,
    permissionCorpusCpuMedian: pair(corpusCpu),
    permissionCorpusWall: pair(corpusWall),
    mixWall: pair(mixWall),
  };
}

const result = {
  commandsPerSecond: Math.round(analyzePerSecond),
  parseForSecurityPerSecond: Math.round(parsePerSecond),
  isReadOnlyCommandPerSecond: Math.round(readOnlyPerSecond),
  analyzeToParseRatio: Number((analyzePerSecond / parsePerSecond).toFixed(3)),
  permissionCorpusCommandsPerSecond: Math.round(corpusRates['analyzeCorpus'] ?? 0),
  permissionCorpusCpuMedianPerSecond: Math.round(corpusCpuRates['analyzeCorpus'] ?? 0),
  permissionCorpusSize: permissionCorpus.length,
  callQuestionsSeparatelyPerSecond: Math.round(corpusRates['separately'] ?? 0),
  callQuestionsPreparedPerSecond: Math.round(corpusRates['prepared'] ?? 0),
  mixSize: mix.length,
  averageCommandLength: Math.round(averageLength),
  ...(against ? { against } : {}),
};

if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(`shell analysis over ${result.mixSize} commands (avg ${result.averageCommandLength} chars)`);
  console.log(`  analyzeCommand     ${result.commandsPerSecond.toLocaleString()} commands/s`);
  console.log(`  parseForSecurity   ${result.parseForSecurityPerSecond.toLocaleString()} commands/s`);
  console.log(`  isReadOnlyCommand  ${result.isReadOnlyCommandPerSecond.toLocaleString()} commands/s`);
  console.log(`  analyze / parse    ${result.analyzeToParseRatio}`);
  console.log(`permission corpus (${result.permissionCorpusSize} Bash commands; target ≥ 25,000/s):`);
  console.log(`  analyzeCommand     ${result.permissionCorpusCommandsPerSecond.toLocaleString()} commands/s`);
  console.log(
    `  (CPU time, median round: ${result.permissionCorpusCpuMedianPerSecond.toLocaleString()} commands/s)`,
  );
  console.log('one Bash call’s questions (read-only, parse, decision analysis):');
  console.log(`  asked separately   ${result.callQuestionsSeparatelyPerSecond.toLocaleString()} calls/s`);
  console.log(`  one prepared walk  ${result.callQuestionsPreparedPerSecond.toLocaleString()} calls/s`);
  if (against) {
    console.log(`against ${against.directory} (analyzeCommand, this / other, interleaved):`);
    const line = (label: string, pair: { this: number; other: number; ratio: number }) =>
      console.log(
        `  ${label.padEnd(34)} ${pair.this.toLocaleString()} / ${pair.other.toLocaleString()} commands/s = ${pair.ratio}×`,
      );
    line('permission corpus, CPU median', against.permissionCorpusCpuMedian);
    line('permission corpus, wall', against.permissionCorpusWall);
    line('mix, wall', against.mixWall);
  }
}
