import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DecisionPlace, decisionPlace } from './decision-place.ts';

/**
 * Where the project's own repository runs code from, whatever the directory is called (class
 * `repository-control`, docs/decisions/security-repository-control.md). With `core.hooksPath`
 * set to `.githooks` or `scripts/hooks`, or the git directory kept beside the tree
 * (`git init --separate-git-dir=gitstore`), acceptEdits allowed writing `.githooks/pre-commit`,
 * `gitstore/hooks/post-checkout` or `gitstore/config`: no protected name spells them, and git
 * runs them on the person's next commit or checkout.
 */

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

function repository(place: DecisionPlace, hooksPath: string | undefined, separate: boolean) {
  git(
    place.project,
    'init',
    '-q',
    ...(separate ? ['--separate-git-dir', join(place.project, 'gitstore')] : []),
  );
  if (hooksPath) {
    git(place.project, 'config', 'core.hooksPath', hooksPath);
    mkdirSync(join(place.project, hooksPath), { recursive: true });
  }
  mkdirSync(join(place.project, 'src'), { recursive: true });
  writeFileSync(join(place.project, 'src', 'app.ts'), 'export const a = 1;\n');
}

const hooksPlace = decisionPlace('efferent-repo-hooks-', (place) => repository(place, '.githooks', false));
const scriptsPlace = decisionPlace('efferent-repo-scripts-', (place) =>
  repository(place, 'scripts/hooks', false),
);
const separatePlace = decisionPlace('efferent-repo-separate-', (place) => repository(place, undefined, true));
const controlPlace = decisionPlace('efferent-repo-control-', (place) => {
  repository(place, undefined, false);
  mkdirSync(join(place.project, '.githooks'));
});

const hookNames = [
  'pre-commit',
  'post-checkout',
  'commit-msg',
  'pre-push',
  'post-merge',
  'fsmonitor-watchman',
];
type Call = { tool: string; input: Record<string, unknown> };
const writers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: '#!/bin/sh\ntouch pwned\n' } }),
  (path) => ({ tool: 'Edit', input: { file_path: path, old_string: 'a', new_string: 'b' } }),
  (path) => ({ tool: 'Bash', input: { command: `cp src/app.ts ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `touch ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `printf x | tee -a ${path}` } }),
  (path) => ({ tool: 'Bash', input: { command: `echo 'touch pwned' >> ./${path}` } }),
];

async function neverAllowed(place: DecisionPlace, paths: readonly string[]): Promise<number> {
  let count = 0;
  for (const path of paths)
    for (const write of writers) {
      const { tool, input } = write(path);
      const result = await place.decideTool(tool, input, {}, 'acceptEdits');
      expect(result.behavior, `${tool} ${JSON.stringify(input)}`).not.toBe('allow');
      expect(result.message, path).toMatch(/\.$/);
      count++;
    }
  return count;
}

describe('repository control: the hooks directory and git directory git really uses are protected (generated)', () => {
  it('git runs a hook from core.hooksPath on commit (the attack is real)', () => {
    const hook = join(hooksPlace.project, '.githooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho HOOK-RAN\n');
    chmodSync(hook, 0o755);
    const out = hooksPlace.bash(
      'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x 2>&1; rm .githooks/pre-commit',
    );
    expect(out).toContain('HOOK-RAN');
  });

  it('never allows writing a hook where core.hooksPath points', async () => {
    const count =
      (await neverAllowed(
        hooksPlace,
        hookNames.map((hook) => `.githooks/${hook}`),
      )) +
      (await neverAllowed(
        scriptsPlace,
        hookNames.map((hook) => `scripts/hooks/${hook}`),
      ));
    expect(count).toBe(2 * hookNames.length * writers.length);
  });

  it('never allows writing the git directory a .git file points to', async () => {
    const paths = [
      ...hookNames.map((hook) => `gitstore/hooks/${hook}`),
      'gitstore/config',
      'gitstore/info/attributes',
    ];
    expect(await neverAllowed(separatePlace, paths)).toBe(paths.length * writers.length);
  });

  it('keeps ordinary edits allowed, and a directory named .githooks is ordinary when git does not use it', async () => {
    for (const place of [hooksPlace, scriptsPlace, separatePlace, controlPlace]) {
      const write = await place.decideTool(
        'Write',
        { file_path: 'src/app.ts', content: 'x\n' },
        {},
        'acceptEdits',
      );
      expect(write.behavior).toBe('allow');
      expect((await place.decide('touch src/new.ts', {}, 'acceptEdits')).behavior).toBe('allow');
      expect((await place.decide('touch scripts/notes.txt', {}, 'acceptEdits')).behavior).toBe('allow');
    }
    const control = await controlPlace.decideTool(
      'Write',
      { file_path: '.githooks/pre-commit', content: 'x\n' },
      {},
      'acceptEdits',
    );
    expect(control.behavior).toBe('allow');
  });
});
