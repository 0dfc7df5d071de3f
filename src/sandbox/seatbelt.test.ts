import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SandboxPolicy } from './sandbox.ts';
import { seatbeltProfile } from './seatbelt.ts';

const goldenDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'golden', 'seatbelt');

/** Compares with the committed profile; `EFFERENT_UPDATE_GOLDEN=1` rewrites it (review the diff). */
function golden(name: string, text: string): void {
  const path = join(goldenDir, name);
  if (process.env['EFFERENT_UPDATE_GOLDEN'] === '1') writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

const policy: SandboxPolicy = {
  writableDirectories: ['/Users/dev/project', '/Users/dev/extra dir'],
  sessionDirectory: '/Users/dev/.efferent/sessions/s1',
  homeDirectory: '/Users/dev',
  allowNetwork: false,
  privateTmpDirectory: '/private/var/folders/xy/T/efferent-sandbox-tmp-1',
  writableSessionFiles: ['/Users/dev/.efferent/sessions/s1/shell/b1.cwd'],
  hiddenPaths: ['/Users/dev/project/.env', '/Users/dev/.aws'],
};

describe('Seatbelt profiles from the sandbox policy (golden)', () => {
  it('no network: writes only the working directories, protected names and .git state excepted', () => {
    golden('no-network.sb', seatbeltProfile(policy));
  });

  it('behind the proxies: outbound TCP to the two proxy ports only', () => {
    golden(
      'proxied.sb',
      seatbeltProfile(
        { ...policy, networkProxy: true, hiddenPaths: [] },
        { proxyPorts: { http: 49152, socks: 49153 } },
      ),
    );
  });

  it('says the same thing the bubblewrap layout does', () => {
    const profile = seatbeltProfile(policy);
    expect(profile).toContain('(deny default)');
    expect(profile).toContain('(deny file-write* (subpath "/Users/dev/project/.git"))');
    expect(profile).toContain('(subpath "/Users/dev/project/.git/objects")');
    expect(profile).toContain('(subpath "/Users/dev/project/.claude")');
    expect(profile).toContain(
      '(deny file-read* file-write* (subpath "/Users/dev/.aws") (subpath "/Users/dev/project/.env"))',
    );
    expect(profile).toContain('(deny network-outbound (remote unix-socket))');
    expect(profile).not.toContain('(allow network');
    // Later rules win: the git directory's deny comes after the working directory's allow.
    expect(profile.indexOf('(deny file-write* (subpath "/Users/dev/project/.git"))')).toBeGreaterThan(
      profile.indexOf('(allow file-write* (subpath "/Users/dev/extra dir")'),
    );
    expect(seatbeltProfile({ ...policy, allowNetwork: true })).toContain('(allow network*)');
  });

  it('quotes paths so a name cannot end the string', () => {
    const profile = seatbeltProfile({ ...policy, writableDirectories: ['/tmp/a"b) (allow default'] });
    expect(profile).toContain('(subpath "/tmp/a\\"b) (allow default")');
    expect(profile).not.toMatch(/^\(allow default\)/m);
  });
});

const onMac = process.platform === 'darwin' && existsSync('/usr/bin/sandbox-exec');
describe.skipIf(!onMac)('Seatbelt at runtime (macOS only)', () => {
  it('a command writes its project and nothing else', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-seatbelt-')));
    try {
      const project = join(base, 'project');
      mkdirSync(join(project, '.git'), { recursive: true });
      const profile = seatbeltProfile({
        writableDirectories: [project],
        sessionDirectory: join(base, 'session'),
        homeDirectory: base,
        allowNetwork: false,
      });
      const run = (script: string) =>
        spawnSync('/usr/bin/sandbox-exec', ['-p', profile, '/bin/sh', '-c', script], {
          cwd: project,
          encoding: 'utf8',
        });
      expect(run('echo in > inside.txt').status).toBe(0);
      expect(run(`echo out > ${base}/outside.txt`).status).not.toBe(0);
      expect(run('echo x > .git/config').status).not.toBe(0);
      expect(existsSync(join(base, 'outside.txt'))).toBe(false);
      expect(execFileSync('cat', [join(project, 'inside.txt')], { encoding: 'utf8' })).toBe('in\n');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
