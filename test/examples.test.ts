import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from '../src/testing/index.ts';

const root = resolve(import.meta.dirname, '..');

describe('examples/embed.ts (the README library example)', () => {
  it('runs a custom tool and built-ins through one session, refusing an unapproved write', async () => {
    await using workspace = await createTempWorkspace({ files: { 'a.txt': 'a\n' } });
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'examples/embed.ts'), workspace.dir],
      {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env['PATH'], HOME: workspace.dir },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'WordCount: 5 words',
      'Glob: a.txt',
      expect.stringMatching(
        /^Bash \(refused\): <tool_use_error>Permission to run `rm -rf build` was not granted/,
      ),
      '',
    ]);
  });
});
