import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
 * The sandbox hides what the Read deny rules cover by mounting over those paths. A mount hides a
 * name, not a file: a command that renamed a folder above a hidden path carried the hidden file
 * away, on the host, to a name no deny rule covers, and the next `cat` or Read of the new name was
 * allowed. Here a repository script that an allow rule lets run (`sh move.sh`, as `npm test` would)
 * tries every folder above every hidden path with several movers; the hidden files must stay where
 * the rules name them, and nothing the command could reach afterwards may show their content.
 */
describe.skipIf(!availability.available)(`folders above hidden paths${skipReason}`, () => {
  let root: string;
  let project: string;
  let session: Session | undefined;
  const secrets = {
    'config/prod/key': 'SECRET-PROD',
    'deploy/env/staging/.env': 'SECRET-STAGING',
    'a/b/c/d/id_ed25519': 'SECRET-KEY',
  } as const;
  const rules = ['Read(./config/prod/**)', 'Read(./deploy/env/staging/.env)', 'Read(**/id_ed25519)'];
  const movers = [
    (from: string, to: string) => `mv ${from} ${to}`,
    (from: string, to: string) =>
      `python3 -c "import os,sys; os.rename(sys.argv[1], sys.argv[2])" ${from} ${to}`,
    (from: string, to: string) => `perl -e 'rename($ARGV[0], $ARGV[1]) or exit 1' ${from} ${to}`,
    (from: string, to: string) =>
      `mkdir -p moved && mv -t moved ${from} && mv moved/$(basename ${from}) ${to}`,
  ];

  const put = async (path: string, content: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-hidden-folders-')));
    project = join(root, 'project');
    for (const [path, content] of Object.entries(secrets)) await put(join(project, path), `${content}\n`);
    await put(join(project, 'config', 'app.json'), '{}\n');
    await put(join(project, 'plain', 'notes.txt'), 'notes\n');
    // Every folder above every secret (config, deploy, deploy/env, …, but not the project root),
    // each tried with every mover, in one script the allow rule lets run.
    const folders = [
      ...new Set(
        Object.keys(secrets).flatMap((path) =>
          path
            .split('/')
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
        ),
      ),
    ];
    const lines = folders.flatMap((folder) =>
      movers.map(
        (move, i) =>
          `${move(folder, `renamed-${i}-${folder.replaceAll('/', '_')}`)} 2>/dev/null && echo "moved ${folder} with ${i}"`,
      ),
    );
    await put(join(project, 'move.sh'), `${lines.join('\n')}\nexit 0\n`);
    session = await createSession({
      cwd: project,
      home: join(root, 'home'),
      trusted: true,
      cli: {
        settings: JSON.stringify({
          permissions: { deny: rules, allow: ['Bash(sh move.sh)', 'Bash(sh work.sh)'] },
        }),
      },
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(root, 'home'), LC_ALL: 'C.UTF-8' },
    });
  });
  afterEach(async () => {
    await session?.dispose();
    session = undefined;
    await rm(root, { recursive: true, force: true });
  });

  const call = async (tool: string, input: Record<string, unknown>) => {
    if (!session) throw new Error('no session');
    return toolResultText(await session.callTool(tool, input));
  };

  it('no folder above a hidden path can be renamed, so every hidden file keeps the name its rule denies', async () => {
    const moved = await call('Bash', { command: 'sh move.sh' });
    expect(moved).not.toMatch(/moved \S+ with \d/);
    for (const [path, content] of Object.entries(secrets)) {
      expect(readFileSync(join(project, path), 'utf8'), path).toBe(`${content}\n`);
    }
    // A mover may fall back to copying (rename across mounts fails with EXDEV) and leave a partial
    // copy: no file anywhere but the secrets themselves holds a secret (checked on the host).
    const files = readdirSync(project, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    const holders = files
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => readFileSync(path, 'utf8').includes('SECRET-'));
    expect(holders.sort()).toEqual(
      Object.keys(secrets)
        .map((path) => join(project, path))
        .sort(),
    );
    for (const path of Object.keys(secrets)) {
      expect(await call('Read', { file_path: join(project, path) })).not.toContain('SECRET');
    }
  });

  it('everyday work in those folders goes on: files made, changed, removed; other folders move', async () => {
    await writeFile(
      join(project, 'work.sh'),
      [
        'echo "{\\"a\\":1}" > config/app.json && echo changed',
        'mkdir -p config/new deploy/env/dev && echo x > config/new/f && rm -r config/new && echo made-and-removed',
        'mv plain plain2 && mv plain2 plain && echo other-folder-moved',
        'mv config/app.json config/app2.json && mv config/app2.json config/app.json && echo file-renamed',
      ].join('\n'),
    );
    const out = await call('Bash', { command: 'sh work.sh' });
    for (const word of ['changed', 'made-and-removed', 'other-folder-moved', 'file-renamed'])
      expect(out).toContain(word);
    expect(existsSync(join(project, 'deploy', 'env', 'dev'))).toBe(true);
  });
});

/**
 * The same for what the sandbox keeps read-only below the root: the folder `core.hooksPath` names
 * and nested repositories. Renaming a folder above the read-only mount moved it away and freed the
 * name: `mv tools t2 && mkdir -p tools/hooks && echo … > tools/hooks/pre-commit` planted a hook the
 * user's next `git commit` on the host ran (checked live).
 */
describe.skipIf(!availability.available)(`folders above read-only protections${skipReason}`, () => {
  let root: string;
  let project: string;
  let session: Session | undefined;
  const hookFolders = ['tools/hooks', 'dev/git/hooks', '.config/githooks'];
  const movers = [
    (from: string, to: string) => `mv ${from} ${to}`,
    (from: string, to: string) =>
      `python3 -c "import os,sys; os.rename(sys.argv[1], sys.argv[2])" ${from} ${to}`,
    (from: string, to: string) => `perl -e 'rename($ARGV[0], $ARGV[1]) or exit 1' ${from} ${to}`,
  ];

  const put = async (path: string, content: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  afterEach(async () => {
    await session?.dispose();
    session = undefined;
    await rm(root, { recursive: true, force: true });
  });

  for (const hooks of hookFolders) {
    it(`core.hooksPath=${hooks}: no folder above it moves, no hook is planted, the host's commit runs none`, async () => {
      root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-pinned-')));
      project = join(root, 'project');
      const marker = join(root, 'hook-ran');
      await put(join(project, hooks, 'pre-commit'), '#!/bin/sh\nexit 0\n');
      await put(join(project, 'vendor', 'lib', 'README'), 'nested\n');
      execFileSync('git', ['init', '-q'], { cwd: project });
      execFileSync('git', ['config', 'core.hooksPath', hooks], { cwd: project });
      execFileSync('git', ['init', '-q'], { cwd: join(project, 'vendor', 'lib') });
      const nestedConfig = readFileSync(join(project, 'vendor', 'lib', '.git', 'config'), 'utf8');
      const folders = hooks
        .split('/')
        .map((_, i, parts) => parts.slice(0, i + 1).join('/'))
        .slice(0, -1)
        .concat(['vendor', 'vendor/lib']);
      const evil = `#!/bin/sh\\ntouch ${marker}\\n`;
      const lines = folders.flatMap((folder) =>
        movers.map(
          (move, i) =>
            `${move(folder, `gone-${i}`)} 2>/dev/null && echo "moved ${folder} with ${i}" && mkdir -p ${hooks} vendor/lib/.git/hooks && printf '${evil}' > ${hooks}/pre-commit && printf '${evil}' > vendor/lib/.git/hooks/pre-commit && chmod +x ${hooks}/pre-commit vendor/lib/.git/hooks/pre-commit; mv gone-${i} ${folder}.old 2>/dev/null`,
        ),
      );
      await put(join(project, 'move.sh'), `${lines.join('\n')}\nexit 0\n`);
      session = await createSession({
        cwd: project,
        home: join(root, 'home'),
        trusted: true,
        cli: { settings: JSON.stringify({ permissions: { allow: ['Bash(sh move.sh)'] } }) },
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(root, 'home'), LC_ALL: 'C.UTF-8' },
      });
      const out = toolResultText(await session.callTool('Bash', { command: 'sh move.sh' }));
      expect(out).not.toMatch(/moved \S+ with \d/);
      expect(readFileSync(join(project, hooks, 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
      expect(readFileSync(join(project, 'vendor', 'lib', '.git', 'config'), 'utf8')).toBe(nestedConfig);
      expect(existsSync(join(project, 'vendor', 'lib', '.git', 'hooks', 'pre-commit'))).toBe(false);
      // The host's own commits run whatever hook is there: none of the command's.
      const commit = [
        '-c',
        'user.email=t@e',
        '-c',
        'user.name=t',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'x',
      ];
      execFileSync('git', commit, { cwd: project });
      execFileSync('git', commit, { cwd: join(project, 'vendor', 'lib') });
      expect(existsSync(marker)).toBe(false);
    });
  }
});
