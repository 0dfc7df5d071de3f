import { beforeAll, describe, expect, it } from 'vitest';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';

let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
});

const decide = (command: string, cwd: string, deny: string[]) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd, mode: 'default', rules: { allow: [], deny, ask: [] } },
    options,
  );

describe('git REV:path is relative to the repository root', () => {
  it('denies `git show HEAD:.env` from a subdirectory when the root .env is denied', async () => {
    const verdict = await decide('git show HEAD:.env', '/srv/proj/src', ['Read(//srv/proj/.env)']);
    expect(verdict.behavior).toBe('deny');
  });

  it('keeps `./path` relative to the directory git runs in', async () => {
    const verdict = await decide('git show HEAD:./a.ts', '/srv/proj/src', ['Read(//srv/proj/.env)']);
    expect(verdict.behavior).toBe('allow');
  });
});

describe('indirect-read asks', () => {
  it('are safety asks the classifier may not settle, and say what to do next', async () => {
    const verdict = await decide('git log -p', '/srv/proj', ['Read(./.env)']);
    expect(verdict.behavior).toBe('ask');
    expect(verdict.message).toMatch(/after `--`.*\.$/);
    expect(verdict.trace.some((step) => step.stage === 'safety' && step.outcome === 'ask')).toBe(true);
  });

  it('name the files in the command for name lists', async () => {
    const verdict = await decide('wc --files0-from=list', '/srv/proj', ['Read(./.env)']);
    expect(verdict.message).toMatch(/name the files in the command itself/);
  });
});
