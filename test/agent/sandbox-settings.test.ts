import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { probeSandbox } from '../../src/sandbox/sandbox.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;

/**
 * `sandbox` settings reach sandboxed commands through a real session: `sandbox.filesystem.denyRead`
 * hides files and folders however a command reads them, and `sandbox.network` turns the proxies on.
 */
describe.skipIf(!availability.available)(`sandbox settings in a session${skipReason}`, () => {
  let root: string;
  let project: string;
  let home: string;
  let session: Session | undefined;

  const put = async (path: string, content: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-sandbox-settings-')));
    project = join(root, 'project');
    home = join(root, 'home');
    await put(join(project, 'token.txt'), 'top-secret-token\n');
    await put(join(project, 'secrets', 'db.txt'), 'top-secret-db\n');
    await put(join(project, 'readme.md'), 'public\n');
    await put(join(home, '.aws', 'credentials'), 'top-secret-aws\n');
    execFileSync('git', ['init', '-q'], { cwd: project });
    await put(
      join(project, '.efferent', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash'], additionalDirectories: [home] },
        sandbox: {
          filesystem: { denyRead: ['token.txt', 'secrets', '~/.aws'] },
          network: { allowedDomains: ['registry.example.invalid'] },
        },
      }),
    );
    session = await createSession({
      cwd: project,
      home,
      trusted: true,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, LC_ALL: 'C.UTF-8' },
    });
  });
  afterEach(async () => {
    await session?.dispose();
    session = undefined;
    await rm(root, { recursive: true, force: true });
  });

  const bash = async (command: string) => {
    if (!session) throw new Error('no session');
    return toolResultText(await session.callTool('Bash', { command }));
  };

  const readers = [
    (file: string) => `cat ${file}`,
    (file: string) => `echo ${file} | xargs cat`,
    // git reads the file to stage it, then shows the staged copy.
    (file: string) => `git add -f ${file} && git show :${file}`,
    (file: string) => `python3 -c "import sys; print(open(sys.argv[1]).read())" ${file}`,
  ];
  const files = ['token.txt', 'secrets/db.txt'];
  it.each(readers.flatMap((reader) => files.map((file) => reader(file))))(
    '`%s` never shows the secret',
    async (command) => {
      const output = await bash(`${command}; echo exit=$?`);
      expect(output).not.toContain('top-secret');
      expect(output).toMatch(/exit=[1-9]/);
      // What denyRead does not name stays readable.
      expect(await bash('cat readme.md')).toContain('public');
    },
  );

  it('hides denyRead paths in home (~/…) too', async () => {
    const output = await bash(`cat ${home}/.aws/credentials; echo exit=$?`);
    expect(output).not.toContain('top-secret');
    expect(output).toContain('exit=1');
    expect(output).toContain('Permission denied');
  });

  it('turns the network proxies on: a name outside the allowlist is refused with a clear line', async () => {
    const output = await bash('curl -sS https://other.example.invalid/ >/dev/null 2>&1; echo exit=$?');
    expect(output).toContain(
      'efferent sandbox: network access to other.example.invalid:443 was blocked (it is not in sandbox.network.allowedDomains); allow it by adding "other.example.invalid" to sandbox.network.allowedDomains in settings (ask the user), or do without it.',
    );
  });
});
