import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand, isReadOnlyCommand, loadShellParser } from './index.ts';

interface SampleCase {
  id: string;
  command: string;
  cwd: string;
  readOnly: boolean;
  expect: string;
  source: string;
}

const cases = JSON.parse(
  readFileSync(new URL('./fixtures/security-sample-bash.json', import.meta.url), 'utf8'),
) as SampleCase[];

beforeAll(async () => {
  await loadShellParser();
});

describe('security sample: Bash read-only classification', () => {
  it('has every Bash case of the sample', () => {
    expect(cases.length).toBe(65);
  });

  it.each(cases.map((entry) => [entry.id, entry] as const))('%s', (_id, entry) => {
    expect(isReadOnlyCommand(entry.command, { cwd: entry.cwd })).toBe(entry.readOnly);
  });

  it('never leaves an attack case with every subcommand read-only unless the sample says it is', () => {
    for (const entry of cases) {
      if (entry.expect === 'allow' || entry.readOnly) continue;
      const analysis = analyzeCommand(entry.command, { cwd: entry.cwd, home: '/home/user' });
      if (analysis.kind === 'too-complex') continue;
      expect(
        analysis.subcommands.every((subcommand) => subcommand.readOnly),
        entry.id,
      ).toBe(false);
    }
  });
});
