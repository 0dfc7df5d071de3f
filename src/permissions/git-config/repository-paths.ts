import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isInsideDirectory, readOwnFileSync } from '../../core/index.ts';
import { readConfigFile } from './config-file.ts';

/**
 * Places the project's own repository runs code from that no protected name spells: the git
 * directory a `.git` file points to (`git init --separate-git-dir=store`, worktrees), its common
 * directory, and the hooks directory `core.hooksPath` names (`.githooks/`, `scripts/hooks/`). A
 * write there is a hook or configuration git runs on the person's next commit or status.
 */
export interface RepositoryControl {
  /** Directories whose content git runs or obeys, physical paths. */
  directories: Array<{ path: string; what: string }>;
}

function physical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/** The directory a `.git` file names, or undefined when `.git` is a directory, missing or unreadable. */
function gitFileTarget(dotGit: string): string | undefined {
  try {
    if (!lstatSync(dotGit).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const read = readOwnFileSync(dotGit, { maxBytes: 4096 });
  if (read.kind !== 'read') return undefined;
  const match = /^gitdir: (.+?)\r?$/.exec(read.text.split('\n')[0] ?? '');
  return match ? resolve(dirname(dotGit), match[1] as string) : undefined;
}

/** The common directory a worktree's git directory names in `commondir`, else the directory itself. */
function commonDirectory(gitDir: string): string {
  const commondir = join(gitDir, 'commondir');
  // One lstat answers for the usual repository, which has no commondir.
  if (lstatSync(commondir, { throwIfNoEntry: false }) === undefined) return gitDir;
  const read = readOwnFileSync(commondir, { maxBytes: 4096 });
  if (read.kind !== 'read') return gitDir;
  const named = read.text.split('\n')[0]?.trim() ?? '';
  return named === '' ? gitDir : resolve(gitDir, named);
}

/** The last `core.hooksPath` value in the repository's own configuration file. */
function hooksPathOf(common: string): string | undefined {
  const parsed = readConfigFile(join(common, 'config'));
  if (parsed === 'missing' || !parsed.ok) return undefined;
  let value: string | undefined;
  for (const entry of parsed.entries)
    if (entry.section === 'core' && entry.subsection === undefined && entry.name === 'hookspath')
      value = entry.value ?? undefined;
  return value;
}

/** Where a root's repository lives, remembered while its `.git` entry is unchanged (same inode and times). */
interface Located {
  key: string;
  gitDirs: RepositoryControl['directories'];
  common: string;
}
const located = new Map<string, Located>();

function locate(root: string): Located {
  const dotGit = join(root, '.git');
  let key = 'missing';
  try {
    const stats = lstatSync(dotGit, { throwIfNoEntry: false });
    if (stats) key = `${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.isFile()}`;
  } catch {
    key = 'error';
  }
  const known = located.get(root);
  if (known?.key === key) return known;
  const gitDirs: RepositoryControl['directories'] = [];
  const pointed = gitFileTarget(dotGit);
  const gitDir = pointed ?? dotGit;
  if (pointed) gitDirs.push({ path: physical(pointed), what: `the git directory ${dotGit} points to` });
  const common = commonDirectory(gitDir);
  if (common !== gitDir)
    gitDirs.push({ path: physical(common), what: 'the repository’s common git directory' });
  const entry = { key, gitDirs, common };
  if (located.size > 64) located.clear();
  located.set(root, entry);
  return entry;
}

/** The control directories of the repository whose working tree is `root`; empty without one. */
export function repositoryControl(root: string, home: string): RepositoryControl {
  const { gitDirs, common } = locate(root);
  const directories = [...gitDirs];
  const hooksPath = hooksPathOf(common);
  if (hooksPath !== undefined && hooksPath !== '') {
    const expanded = hooksPath.startsWith('~/') ? join(home, hooksPath.slice(2)) : hooksPath;
    const hooks = isAbsolute(expanded) ? expanded : resolve(root, expanded);
    directories.push({ path: physical(hooks), what: 'the hooks directory core.hooksPath names' });
  }
  return { directories };
}

/** Why writing this physical path changes what the repository at `root` runs, or undefined. */
export function repositoryControlReason(path: string, root: string, home: string): string | undefined {
  for (const directory of repositoryControl(root, home).directories)
    if (isInsideDirectory(path, directory.path))
      return `it is inside ${directory.path}, ${directory.what}, which git runs code from`;
  return undefined;
}
