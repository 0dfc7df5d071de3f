import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildSandboxInvocation,
  probeSandbox,
  removeAllPlaceholders,
  type SandboxInvocation,
} from './sandbox.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

const folders: string[] = [];
afterEach(() => {
  removeAllPlaceholders(true);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function project(withRepository: boolean): { root: string; session: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-placeholders-')));
  folders.push(base);
  const root = join(base, 'project');
  const session = join(base, 'session');
  mkdirSync(root);
  mkdirSync(session);
  if (withRepository) execFileSync('git', ['init', '-q'], { cwd: root });
  return { root, session };
}

function build(root: string, session: string): SandboxInvocation {
  return buildSandboxInvocation(
    { writableDirectories: [root], sessionDirectory: session, homeDirectory: session, allowNetwork: false },
    root,
    ['true'],
  );
}

function runBwrap(invocation: SandboxInvocation): { status: number | null; stderr: string } {
  const result = spawnSync(invocation.file, invocation.args, {
    stdio: ['ignore', 'ignore', 'pipe', ...invocation.inheritedFds],
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe.skipIf(!availability.available)(`placeholders shared by consecutive calls${skipReason}`, () => {
  it.each([
    ['a plain folder (covers at the root)', false],
    ['a repository (covers inside .git)', true],
  ])(
    'in %s, a call holds the placeholders a previous call left, so their removal cannot break it',
    (_name, repository) => {
      const { root, session } = project(repository);
      const first = build(root, session);
      first.cleanup();
      // The second call finds the first call's placeholders still there, in their grace period.
      const second = build(root, session);
      // The grace period ends before the second call's bwrap starts (a slow machine, a long await).
      removeAllPlaceholders();
      const run = runBwrap(second);
      second.cleanup();
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      // Once nobody uses them, they go.
      removeAllPlaceholders();
      expect(existsSync(join(root, '.claude'))).toBe(false);
      expect(existsSync(join(root, '.git'))).toBe(repository);
      if (repository) expect(existsSync(join(root, '.git', 'commondir'))).toBe(false);
    },
  );
});
