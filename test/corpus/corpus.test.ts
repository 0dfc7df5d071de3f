import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckOptions, checkPermissionCase, type CheckCase, loadDefaultShellAnalyzer } from '../../src/permissions/index.ts';
import { getAllBaseTools } from '../../src/registry/index.ts';
import { type CorpusCase, corpusHome, materialise, meetsExpectation, readCorpus, toCheckLine } from './corpus-harness.ts';

const root = join(import.meta.dirname, '..', '..');
// Every JSON file here is a corpus: the public sample, our own cases, and one file per attack class.
const corpusFiles = readdirSync(import.meta.dirname).filter((name) => name.endsWith('.json')).sort();
const corpora = corpusFiles.map((file) => ({ file, cases: readCorpus(join(import.meta.dirname, file)) }));
const prepared = corpora.flatMap(({ file, cases }) => cases.map((item) => ({ file, ...materialise(item) })));
afterAll(() => {
  for (const entry of prepared) entry.cleanup();
});

const describeCase = (item: CorpusCase) => `${item.id}: ${item.tool} ${JSON.stringify(item.input).slice(0, 120)} (${item.why})`;

describe('security corpus through `efferent check --jsonl` (one real CLI process)', () => {
  let outputs: Array<Record<string, unknown>> = [];
  beforeAll(() => {
    const lines = prepared.map((entry) => JSON.stringify(toCheckLine(entry.item))).join('\n');
    // A malformed line in the middle must produce an error line, not end the stream.
    const input = `${lines}\n{not json\n`;
    const result = spawnSync(process.execPath, [join(root, 'bin', 'efferent.js'), 'check', '--jsonl'], { input, encoding: 'utf8', cwd: root, timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    outputs = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  }, 60_000);

  it('answers every line, and a bad line with an error', () => {
    expect(outputs).toHaveLength(prepared.length + 1);
    expect(outputs.at(-1)).toHaveProperty('error');
  });

  it.each(prepared.map((entry, index) => [entry.item.id, index] as const))('%s', (_id, index) => {
    const entry = prepared[index];
    const output = outputs[index];
    if (!entry || !output) throw new Error('missing case');
    expect(output.error, describeCase(entry.item)).toBeUndefined();
    expect(meetsExpectation(entry.item.expect, String(output.behavior)), `${describeCase(entry.item)} → ${String(output.behavior)}: ${String(output.message ?? '')}`).toBe(true);
    if (entry.item.readOnly !== null) expect(output.readOnly, `readOnly of ${describeCase(entry.item)}`).toBe(entry.item.readOnly);
    expect(Array.isArray(output.trace) && output.trace.length > 0).toBe(true);
  });
});

describe('security corpus through the library', () => {
  let options: CheckOptions;
  beforeAll(async () => {
    const shell = await loadDefaultShellAnalyzer();
    options = { tools: getAllBaseTools(), defaultHome: corpusHome, ...(shell ? { shell } : {}) };
  });

  it.each(prepared.map((entry, index) => [entry.item.id, index] as const))('%s', async (_id, index) => {
    const entry = prepared[index];
    if (!entry) throw new Error('missing case');
    const result = await checkPermissionCase(toCheckLine(entry.item) as unknown as CheckCase, options);
    expect(meetsExpectation(entry.item.expect, result.behavior), `${describeCase(entry.item)} → ${result.behavior}: ${result.message ?? ''}`).toBe(true);
    if (result.behavior !== 'allow') expect(result.message ?? '').toMatch(/\.$/);
  });
});

describe('corpus files', () => {
  it('keep every field and a source for every case, with ids unique across files', () => {
    const ids = new Set<string>();
    for (const { file, cases } of corpora) {
      for (const item of cases) {
        expect(ids.has(item.id), `${file}: duplicate id ${item.id}`).toBe(false);
        ids.add(item.id);
        for (const key of ['id', 'tool', 'input', 'cwd', 'mode', 'rules', 'expect', 'readOnly', 'why', 'source']) {
          expect(item, `${file}: ${item.id} lacks ${key}`).toHaveProperty(key);
        }
      }
    }
  });
});
