import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze.ts';
import { isReadOnlyCommand } from './is-read-only-command.ts';
import { parseForSecurity } from './parse-for-security.ts';
import { loadShellParser, shellParseCount } from './parser.ts';
import { adoptPreparedAnalysis, prepareShellCommand } from './prepared.ts';

beforeAll(async () => {
  await loadShellParser();
});

describe('prepareShellCommand', () => {
  const command = 'cd sub && cat ~/notes.txt > out.txt | grep -n x';

  it('answers like the separate entry points, from one parse', () => {
    const expected = {
      readOnly: isReadOnlyCommand(command, { cwd: '/srv/proj' }),
      parse: parseForSecurity(command),
      analysis: analyzeCommand(command, { cwd: '/srv/proj', home: '/home/u' }),
    };
    const before = shellParseCount();
    const prepared = prepareShellCommand(command, { cwd: '/srv/proj', home: '/home/u' });
    expect(shellParseCount()).toBe(before);
    const answers = {
      readOnly: prepared.isReadOnly(),
      parse: prepared.parse(),
      analysis: prepared.analysisFor('/srv/proj', '/home/u'),
    };
    expect(shellParseCount() - before).toBe(1);
    expect(answers).toEqual(expected);
  });

  it('makes its own analysis for another directory or home, once each', () => {
    const expected = analyzeCommand(command, { cwd: '/tmp/other', home: '/home/v' });
    const prepared = prepareShellCommand(command, { cwd: '/srv/proj', home: '/home/u' });
    prepared.isReadOnly();
    const before = shellParseCount();
    const elsewhere = prepared.analysisFor('/tmp/other', '/home/v');
    expect(prepared.analysisFor('/tmp/other', '/home/v')).toBe(elsewhere);
    expect(shellParseCount() - before).toBe(1);
    expect(elsewhere).toEqual(expected);
    expect(elsewhere).not.toEqual(prepared.analysisFor('/srv/proj', '/home/u'));
  });

  it('is adopted only by the default analyser, for the same command, when src/shell made it', () => {
    const prepared = prepareShellCommand('ls -la', { cwd: '/srv', home: '/h' });
    const options = { cwd: '/srv', home: '/h' };
    expect(adoptPreparedAnalysis(prepared, analyzeCommand, 'ls -la', options)).toEqual(
      analyzeCommand('ls -la', options),
    );
    expect(adoptPreparedAnalysis(prepared, analyzeCommand, 'rm -rf /', options)).toBeUndefined();
    const custom = (line: string, where: { cwd: string; home?: string }) => analyzeCommand(line, where);
    expect(adoptPreparedAnalysis(prepared, custom, 'ls -la', options)).toBeUndefined();
    // A look-alike made elsewhere (a tool forging an analysis) is never trusted.
    const forged = {
      command: 'rm -rf /',
      analysisFor: () => analyzeCommand('ls', options),
    };
    expect(adoptPreparedAnalysis(forged, analyzeCommand, 'rm -rf /', options)).toBeUndefined();
    expect(adoptPreparedAnalysis(undefined, analyzeCommand, 'ls -la', options)).toBeUndefined();
  });
});
