import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/permissions/settings/load-settings.ts';

/**
 * A status line is a command efferent runs before each prompt, as a hook is. The switches that stop
 * hooks (`disableAllHooks` at any level, the managed `allowManagedHooksOnly`) stopped hooks and let a
 * trusted project's or the user's status line command run.
 */

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-status-line-')));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const write = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
};
const line = { type: 'command', command: 'sh ./status.sh' };

describe('the hook switches stop the status line command', () => {
  it('generated: a switch at each level against a status line at each level', async () => {
    const places = {
      managed: (root: string) => join(root, 'etc', 'managed-settings.json'),
      user: (root: string) => join(root, 'home', '.claude', 'settings.json'),
      project: (root: string) => join(root, 'proj', '.claude', 'settings.json'),
      local: (root: string) => join(root, 'proj', '.claude', 'settings.local.json'),
      efferentProject: (root: string) => join(root, 'proj', '.efferent', 'settings.json'),
    };
    const switches: Array<[keyof typeof places, Record<string, unknown>]> = [
      ['managed', { disableAllHooks: true }],
      ['managed', { allowManagedHooksOnly: true }],
      ['user', { disableAllHooks: true }],
      ['project', { disableAllHooks: true }],
    ];
    const wrong: string[] = [];
    let count = 0;
    for (const [switchPlace, setting] of switches)
      for (const linePlace of Object.keys(places) as Array<keyof typeof places>) {
        const root = mkdtempSync(join(base, 'case-'));
        mkdirSync(join(root, 'proj'), { recursive: true });
        mkdirSync(join(root, 'home'), { recursive: true });
        const files = new Map<string, Record<string, unknown>>();
        const add = (path: string, value: Record<string, unknown>) =>
          files.set(path, { ...(files.get(path) ?? {}), ...value });
        add(places[switchPlace](root), setting);
        add(places[linePlace](root), { statusLine: line });
        for (const [path, value] of files) write(path, value);
        const settings = await loadSettings({
          cwd: join(root, 'proj'),
          home: join(root, 'home'),
          trusted: true,
          managedSettingsPath: places.managed(root),
        });
        // Only the policy's own status line survives a switch below it or its own hooks-only rule.
        const keeps = linePlace === 'managed' && !(switchPlace === 'managed' && 'disableAllHooks' in setting);
        if ((settings.statusLine !== undefined) !== keeps)
          wrong.push(
            `${switchPlace} ${JSON.stringify(setting)} / statusLine in ${linePlace}: ${settings.statusLine ? 'runs' : 'off'}`,
          );
        count++;
      }
    expect(wrong).toEqual([]);
    expect(count).toBe(20);
  });

  it('without a switch, the status line of the highest level runs', async () => {
    const root = mkdtempSync(join(base, 'plain-'));
    write(join(root, 'proj', '.claude', 'settings.json'), { statusLine: line });
    mkdirSync(join(root, 'home'), { recursive: true });
    const settings = await loadSettings({
      cwd: join(root, 'proj'),
      home: join(root, 'home'),
      trusted: true,
      managedSettingsPath: join(root, 'etc', 'managed-settings.json'),
    });
    expect(settings.statusLine).toEqual(line);
  });
});
