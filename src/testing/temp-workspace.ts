import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway directory with files in it, removed by `dispose()` or `await using`. */
export interface TempWorkspace extends AsyncDisposable {
  /** The canonical absolute path of the workspace (symlinks such as macOS /var resolved). */
  readonly dir: string;
  /** An absolute path inside the workspace. */
  path(relative: string): string;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  read(relative: string): Promise<string>;
  /** Runs git in the workspace (only meaningful with `git: true`). */
  git(...args: string[]): Promise<string>;
  dispose(): Promise<void>;
}

/** What to put in a new workspace. */
export interface TempWorkspaceOptions {
  /** Relative path → content. Parent folders are created. */
  files?: Record<string, string | Uint8Array>;
  /** Make it a git repository with one commit of the files. */
  git?: boolean;
  prefix?: string;
}

/** Creates a real temporary directory (optionally a real git repo) for tests and examples. */
export async function createTempWorkspace(options: TempWorkspaceOptions = {}): Promise<TempWorkspace> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), options.prefix ?? 'efferent-ws-')));
  const path = (relative: string) => join(dir, relative);
  const write = async (relative: string, content: string | Uint8Array) => {
    const target = path(relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return target;
  };
  const git = async (...args: string[]) => {
    const { stdout } = await run('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'efferent',
        GIT_AUTHOR_EMAIL: 'efferent@example.invalid',
        GIT_COMMITTER_NAME: 'efferent',
        GIT_COMMITTER_EMAIL: 'efferent@example.invalid',
        GIT_CONFIG_NOSYSTEM: '1',
      },
    });
    return stdout;
  };
  for (const [relative, content] of Object.entries(options.files ?? {})) await write(relative, content);
  if (options.git) {
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '--allow-empty', '-m', 'initial');
  }
  const dispose = () => rm(dir, { recursive: true, force: true });
  return {
    dir,
    path,
    write,
    read: (relative) => readFile(path(relative), 'utf8'),
    git,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
