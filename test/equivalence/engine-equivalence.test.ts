import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../../src/permissions/index.ts';
import { getAllBaseTools } from '../../src/registry/index.ts';
import { materialise } from '../corpus/corpus-harness.ts';
import { corpusCall, corpusCases, EquivalenceRunner, generateCalls } from './equivalence-harness.ts';

// The full run (100,000 generated calls) is `npx tsx test/equivalence/run-equivalence.ts`.
const generatedCount = Number(process.env.EFFERENT_EQUIVALENCE_CALLS ?? 1500);

describe('the indexed engine decides exactly as the engine before the index', () => {
  let shell: DefaultShellAnalyzer;
  const prepared = corpusCases().map((item) => materialise(item));
  afterAll(() => {
    for (const entry of prepared) entry.cleanup();
  });
  beforeAll(async () => {
    const loaded = await loadDefaultShellAnalyzer();
    if (!loaded) throw new Error('the shell analyser did not load');
    shell = loaded;
  });

  it('on every corpus case, with the real tools and the real disk', async () => {
    const runner = new EquivalenceRunner(shell, getAllBaseTools());
    const differences = [];
    for (const entry of prepared) {
      const difference = await runner.compare(corpusCall(entry.item), true);
      if (difference && !difference.reviewed) differences.push(difference);
    }
    expect(prepared.length).toBeGreaterThan(600);
    expect(differences).toEqual([]);
  }, 120_000);

  it('differs only where recorded: past the limits, no suggestions and no allow rules on the pieces', async () => {
    const runner = new EquivalenceRunner(shell);
    const call = {
      id: 'past-limits',
      tool: 'Bash',
      input: {
        command: [...Array.from({ length: 60 }, () => 'true'), 'curl https://example.com'].join(' && '),
      },
      mode: 'default' as const,
      cwd: '/srv/proj',
      home: '/home/user',
      rules: { allow: ['Bash(true)'], deny: [], ask: [] },
    };
    const difference = await runner.compare(call);
    if (!difference) throw new Error('a command past the limits should be decided differently');
    expect(difference.reviewed).toBe('past-limits');
    expect((difference.current as { behavior: string }).behavior).toBe('ask');
    expect((difference.current as { suggestions?: unknown[] }).suggestions).toBeUndefined();
    expect((difference.legacy as { suggestions?: unknown[] }).suggestions?.length).toBeGreaterThan(0);
    // The same command under the limit is decided identically.
    expect(
      await runner.compare({ ...call, input: { command: 'true && curl https://example.com' } }),
    ).toBeUndefined();
  });

  it(`on ${generatedCount} generated calls against generated rule sets`, async () => {
    const runner = new EquivalenceRunner(shell);
    const differences = [];
    let behaviors = new Map<string, number>();
    for (const call of generateCalls(generatedCount, 20261201)) {
      const difference = await runner.compare(call);
      if (difference && !difference.reviewed) differences.push(difference);
    }
    expect(differences.slice(0, 3)).toEqual([]);
    // The generator must reach every outcome, or the comparison proves little.
    behaviors = new Map();
    for (const call of generateCalls(300, 7)) {
      const request = await runner.request(call, false);
      const { evaluatePermission } = await import('../../src/permissions/index.ts');
      const behavior = evaluatePermission(request).behavior;
      behaviors.set(behavior, (behaviors.get(behavior) ?? 0) + 1);
    }
    expect([...behaviors.keys()].sort()).toEqual(['allow', 'ask', 'deny']);
  }, 300_000);
});
