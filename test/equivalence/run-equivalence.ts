/**
 * The full side-by-side run: every corpus case plus generated calls (100,000 by default), decided by
 * the current engine and the frozen engine from before the rule index; prints each difference.
 * `npx tsx test/equivalence/run-equivalence.ts [--calls N] [--seed S] [--no-corpus]`
 */
import { loadDefaultShellAnalyzer } from '../../src/permissions/index.ts';
import { getAllBaseTools } from '../../src/registry/index.ts';
import { materialise } from '../corpus/corpus-harness.ts';
import {
  corpusCall,
  corpusCases,
  type Difference,
  EquivalenceRunner,
  generateCalls,
} from './equivalence-harness.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const count = option('--calls', 100_000);
const seed = option('--seed', 20261201);

const shell = await loadDefaultShellAnalyzer();
if (!shell) throw new Error('the shell analyser did not load');
const started = Date.now();
const differences: Difference[] = [];
const corpusRunner = new EquivalenceRunner(shell, getAllBaseTools());
const cases = args.includes('--no-corpus') ? [] : corpusCases();
for (const item of cases) {
  const entry = materialise(item);
  try {
    const difference = await corpusRunner.compare(corpusCall(entry.item), true);
    if (difference) differences.push(difference);
  } finally {
    entry.cleanup();
  }
}
const runner = new EquivalenceRunner(shell);
const tally = new Map<string, number>();
let done = 0;
for (const call of generateCalls(count, seed)) {
  const difference = await runner.compare(call);
  if (difference) differences.push(difference);
  done++;
  if (done % 10_000 === 0) process.stderr.write(`${done} generated calls compared\n`);
  tally.set(call.tool, (tally.get(call.tool) ?? 0) + 1);
}
for (const difference of differences) process.stdout.write(`${JSON.stringify(difference)}\n`);
const unreviewed = differences.filter((difference) => difference.reviewed === undefined);
process.stdout.write(
  `${cases.length} corpus cases and ${count} generated calls (seed ${seed}, ${[...tally].map(([tool, n]) => `${tool} ${n}`).join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${unreviewed.length} differences, ${differences.filter((d) => d.reviewed === 'past-limits').length} reviewed past the limits, ${differences.filter((d) => d.reviewed === 'stricter').length} where the engine is stricter or gives another reason for the same answer, ${differences.filter((d) => d.reviewed === 'recorded').length} recorded looser by review\n`,
);
process.exit(unreviewed.length === 0 ? 0 : 1);
