import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, decideCall } from '../src/agent/index.ts';
import { loadSettings } from '../src/permissions/index.ts';

/**
 * `allowManagedPermissionRulesOnly`: only the managed policy's rules count. A working directory
 * allows reading it (and editing it in acceptEdits) as an allow rule would, so the user's, a trusted
 * project's and the command line's directories must not widen the workspace either.
 */

let base: string;
let outside: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-managed-widening-')));
  outside = join(base, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'x\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function place(policy: Record<string, unknown>) {
  const root = mkdtempSync(join(base, 'case-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  for (const dir of [
    join(home, '.claude'),
    join(home, '.efferent'),
    join(project, '.claude'),
    join(project, '.efferent'),
  ])
    mkdirSync(dir, { recursive: true });
  const managed = join(root, 'managed.json');
  writeFileSync(managed, JSON.stringify(policy));
  return { home, project, managed };
}

const widenings = (dir: string) => [dir, '/', '..', '../outside', `${dir}/`];

describe('a managed-only policy', () => {
  it('generated: no level below it and no --add-dir widens the workspace', async () => {
    let count = 0;
    for (const spelling of widenings(outside))
      for (const file of [
        ['home', '.claude/settings.json'],
        ['home', '.efferent/settings.json'],
        ['project', '.claude/settings.json'],
        ['project', '.claude/settings.local.json'],
        ['project', '.efferent/settings.json'],
        ['cli', '--add-dir'],
      ] as const) {
        const { home, project, managed } = place({ allowManagedPermissionRulesOnly: true });
        const cli: { additionalDirectories?: string[] } = {};
        if (file[0] === 'cli') cli.additionalDirectories = [spelling];
        else
          writeFileSync(
            join(file[0] === 'home' ? home : project, file[1]),
            JSON.stringify({ permissions: { additionalDirectories: [spelling] } }),
          );
        const settings = await loadSettings({
          cwd: project,
          home,
          trusted: true,
          managedSettingsPath: managed,
          cli,
        });
        expect(settings.additionalDirectories, `${spelling} in ${file.join('/')}`).toEqual([]);
        expect(settings.notices.join(' ')).toMatch(/policy allows managed rules only/);
        count++;
      }
    expect(count).toBe(5 * 6);
  });

  it('a read and an acceptEdits write outside the project ask; the policy’s own directory still counts', async () => {
    const { home, project, managed } = place({ allowManagedPermissionRulesOnly: true });
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { additionalDirectories: ['/'] } }),
    );
    await using session = await createSession({
      cwd: project,
      home,
      trusted: true,
      managedSettingsPath: managed,
      permissionMode: 'acceptEdits',
      cli: { additionalDirectories: [outside] },
      runHooks: false,
      persistRules: false,
    });
    for (const [tool, input] of [
      ['Read', { file_path: join(outside, 'secret.txt') }],
      ['Bash', { command: `cat ${join(outside, 'secret.txt')}` }],
      ['Write', { file_path: join(outside, 'new.txt'), content: 'x' }],
      ['Bash', { command: 'cat /etc/hostname' }],
    ] as const)
      expect((await decideCall(session, tool, input)).behavior, `${tool} ${JSON.stringify(input)}`).toBe(
        'ask',
      );
    const {
      managed: withDirectory,
      project: other,
      home: otherHome,
    } = place({
      allowManagedPermissionRulesOnly: true,
      permissions: { additionalDirectories: [outside] },
    });
    await using allowed = await createSession({
      cwd: other,
      home: otherHome,
      trusted: true,
      managedSettingsPath: withDirectory,
      runHooks: false,
      persistRules: false,
    });
    expect((await decideCall(allowed, 'Read', { file_path: join(outside, 'secret.txt') })).behavior).toBe(
      'allow',
    );
  });

  it('without managed-only, the user’s directory and --add-dir apply as before', async () => {
    const { home, project, managed } = place({ permissions: { deny: ['Bash(curl *)'] } });
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { additionalDirectories: [outside] } }),
    );
    const settings = await loadSettings({
      cwd: project,
      home,
      trusted: true,
      managedSettingsPath: managed,
      cli: { additionalDirectories: [join(base, 'extra')] },
    });
    expect(settings.additionalDirectories).toEqual([outside, join(base, 'extra')]);
  });
});
