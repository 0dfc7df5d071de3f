import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isInsideDirectory, readOwnFileSync } from '../../core/index.ts';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { type ConfigEntry, isIncludeEntry, readConfigFile, readConfigWithIncludes } from './config-file.ts';
import { entryConcern, entryKey, pathValuedKeys } from './inert-keys.ts';
import { isHarmlessEnvAssignment } from '../../shell/index.ts';

/**
 * Before a git invocation is allowed without a person, the configuration of the repository git will
 * really use is read and judged by an allowlist of inert keys. The repository is found the way git
 * finds it — from the directory the invocation runs in (the session's, a `cd` earlier on the line,
 * `env -C`, `-C`), through `.git` directories and `gitdir:` files, `commondir`, `config.worktree`,
 * includes, bare repositories (a directory that is itself a git directory), `--git-dir`,
 * `--work-tree` and `--bare` — together with the configuration of its submodules (which `git status`
 * and `git diff` run git in) and the hooks an index refresh or ref update would run. Git is never
 * started. The user's global and system configuration are not read: they are the user's own.
 */

/** One git invocation as the shell analyser sees it. */
export interface GitInvocation {
  /** The words, the program (`git`) first. */
  argv: readonly string[];
  /** Parallel to argv: whether each word is known before the command runs. */
  argKinds?: ReadonlyArray<'literal' | 'glob' | 'dynamic'>;
  /** Assignments before the command; a value, when known, lets harmless ones (`GIT_PAGER=cat`) pass. */
  envVars: ReadonlyArray<{ name: string; value?: string }>;
  /** The directory it runs in; null when only known at run time. */
  cwd: string | null;
  /** For `~/` in include paths and `core.hooksPath`. */
  home: string;
}

/**
 * The verdict: inert (with what was read, for the trace) or a reason to ask. `reads` are the files
 * and directories the configuration makes git open (`core.worktree`, `blame.ignoreRevsFile`…): the
 * caller judges them as reads of the command, as if they stood on its command line.
 */
export type GitInspection =
  | { ok: true; detail: string; reads?: readonly string[]; storeReads?: readonly StoreRead[] }
  | { ok: false; reason: string };

/**
 * A git directory or object store that a directory's `.git` link, gitdir file or `alternates`
 * names (`namedIn`): when that directory is the user's working directory, the store is read as
 * the command's. A repository found above the working directories is the user's own layout.
 */
export interface StoreRead {
  path: string;
  namedIn: string;
  /** What makes git read it, for the message; a git directory or object store when absent. */
  what?: string;
}

/** How the permission engine inspects a git invocation; injectable like `realpath`. */
export type GitInspector = (invocation: GitInvocation) => GitInspection;

/** Hooks that commands the engine treats as read-only can trigger (index refresh, ref updates). */
const readOnlyHooks = ['post-index-change', 'reference-transaction'];

/** At most this many submodule repositories are inspected; more makes git ask. */
const maxSubmodules = 64;

const ask = (reason: string): GitInspection => ({ ok: false, reason });

/** Global options that change nothing git loads. */
const plainGlobalFlags = new Set([
  '--no-pager',
  '-P',
  '-p',
  '--paginate',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-replace-objects',
  '--no-lazy-fetch',
  '--no-advice',
  '--html-path',
  '--man-path',
  '--info-path',
  '--exec-path',
  '-v',
  '--version',
  '-h',
  '--help',
]);
/** Global options with a value that changes nothing git loads. */
const plainGlobalValues = new Set(['--namespace', '--attr-source', '--list-cmds']);

/** `-c a.b.c=v` as an entry; subsection case kept, as git does. */
export function commandLineEntry(setting: string, value: string | null | undefined): ConfigEntry | undefined {
  const equals = setting.indexOf('=');
  const key = equals === -1 ? setting : setting.slice(0, equals);
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return undefined;
  const entry: ConfigEntry = {
    section: key.slice(0, first).toLowerCase(),
    subsection: first === last ? undefined : key.slice(first + 1, last),
    name: key.slice(last + 1).toLowerCase(),
    value: value === undefined ? (equals === -1 ? null : setting.slice(equals + 1)) : value,
    file: 'the command line',
    line: 0,
  };
  return entry;
}

interface GlobalOptions {
  directory: string;
  gitDir?: string;
  workTree?: string;
  bare: boolean;
  entries: ConfigEntry[];
}

/** Reads git's global options (before the subcommand), or why they cannot be modelled. */
function readGlobalOptions(invocation: GitInvocation, start: string): GlobalOptions | string {
  const options: GlobalOptions = { directory: start, bare: false, entries: [] };
  const { argv } = invocation;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] as string;
    const kind = invocation.argKinds?.[index] ?? 'literal';
    if (!word.startsWith('-')) break;
    if (kind !== 'literal') return `its option ${word} is only known when the command runs`;
    const [flag, attached] =
      word.startsWith('--') && word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
    const takeValue = (): string | undefined => {
      if (attached !== undefined) return attached;
      index++;
      if ((invocation.argKinds?.[index] ?? 'literal') !== 'literal') return undefined;
      return argv[index];
    };
    if (flag === '--exec-path' && attached !== undefined)
      return 'it sets --exec-path, which chooses the programs git runs';
    if (plainGlobalFlags.has(word)) continue;
    if (plainGlobalValues.has(flag)) {
      if (takeValue() === undefined) return `the value of ${flag} is not known before it runs`;
      continue;
    }
    if (flag === '-C') {
      const value = takeValue();
      if (value === undefined) return 'the directory given to -C is not known before it runs';
      if (value !== '') options.directory = resolveHome(value, options.directory, invocation.home);
      continue;
    }
    if (flag === '--git-dir' || flag === '--work-tree') {
      const value = takeValue();
      if (value === undefined) return `the value of ${flag} is not known before it runs`;
      const path = resolveHome(value, options.directory, invocation.home);
      if (flag === '--git-dir') options.gitDir = path;
      else options.workTree = path;
      continue;
    }
    if (flag === '--bare') {
      options.bare = true;
      continue;
    }
    if (flag === '-c' || flag === '--config-env') {
      const value = takeValue();
      if (value === undefined) return `the value of ${flag} is not known before it runs`;
      // --config-env takes the value from the environment: judge it as unknown.
      const entry =
        flag === '-c'
          ? commandLineEntry(value, undefined)
          : commandLineEntry(
              value.slice(0, value.indexOf('=') === -1 ? value.length : value.indexOf('=')),
              '-unknown',
            );
      if (!entry) return `${flag} ${value} is not a configuration setting efferent can read`;
      options.entries.push(entry);
      continue;
    }
    return `its option ${word} is not one efferent can model`;
  }
  return options;
}

function resolveHome(path: string, from: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(home, path.slice(2));
  return resolve(from, path);
}

/** One repository git may use: its git directory and, when it has one, its working tree. */
interface Repository {
  gitDir: string;
  workTree: string | undefined;
  /** Why git uses it, for messages. */
  role: string;
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** git's test for "this directory is a repository" (HEAD plus objects and refs, or a commondir). */
function looksLikeGitDirectory(path: string): boolean {
  if (!existsSync(join(path, 'HEAD'))) return false;
  return (
    existsSync(join(path, 'commondir')) ||
    (existsSync(join(path, 'objects')) && existsSync(join(path, 'refs')))
  );
}

/** The directory a `.git` file (`gitdir: …`) points to, or why it cannot be read. */
function readGitFile(path: string): string | { error: string } {
  try {
    const read = readOwnFileSync(path, { maxBytes: 4096 });
    if (read.kind !== 'read')
      return { error: read.kind === 'missing' ? `${path} cannot be read` : read.reason };
    const text = read.text;
    const match = /^gitdir: (.+?)\r?\n?$/.exec(text.split('\n')[0] ?? '');
    if (!match) return { error: `${path} is not a gitdir file git can read` };
    return resolve(dirname(path), match[1] as string);
  } catch (error) {
    return { error: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/**
 * The repositories git's discovery can land on from `start`, nearest first: a `.git` directory
 * that is not a valid repository makes git look further up, so both are kept.
 */
function discover(start: string): Repository[] | { error: string } {
  const found: Repository[] = [];
  for (let directory = start; ; directory = dirname(directory)) {
    const dotGit = join(directory, '.git');
    let info: ReturnType<typeof statSync> | undefined;
    try {
      info = statSync(dotGit);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        return { error: `${dotGit} cannot be read (${code ?? 'error'})` };
    }
    if (info?.isDirectory()) {
      found.push({ gitDir: dotGit, workTree: directory, role: 'the repository' });
      if (looksLikeGitDirectory(dotGit)) return found;
    } else if (info?.isFile()) {
      const target = readGitFile(dotGit);
      if (typeof target !== 'string') return target;
      found.push({ gitDir: target, workTree: directory, role: 'the repository' });
      return found;
    } else if (info) {
      return { error: `${dotGit} is neither a directory nor a gitdir file` };
    }
    if (looksLikeGitDirectory(directory)) {
      found.push({ gitDir: directory, workTree: undefined, role: 'the bare repository' });
      return found;
    }
    const parent = dirname(directory);
    if (parent === directory) return found;
  }
}

/**
 * The key an entry sets, as the reason names it. An included file outside the repository may be any
 * file of the user's (`~/.aws/credentials` shaped like git configuration): its key names are its
 * content, so they are not repeated into a message the model reads.
 */
function shownKey(entry: ConfigEntry, folders: ReadonlyArray<string | undefined>): string {
  const own = folders.some((folder) => folder !== undefined && isInsideDirectory(entry.file, folder));
  return own ? entryKey(entry) : 'a key that is not known to be harmless';
}

/** The shared git directory of a worktree or submodule (`commondir`), or the directory itself. */
function commonDirectory(gitDir: string): string | { error: string } {
  const file = join(gitDir, 'commondir');
  try {
    const read = readOwnFileSync(file, { maxBytes: 4096 });
    if (read.kind === 'missing') return gitDir;
    if (read.kind === 'refused') return { error: read.reason };
    const text = read.text.replace(/\r?\n$/, '');
    if (text === '') return { error: `${file} is empty` };
    return resolve(gitDir, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return gitDir;
    return { error: `${file} cannot be read (${code ?? 'error'})` };
  }
}

/** The last value of a key in a list of entries. */
function lastValue(
  entries: readonly ConfigEntry[],
  section: string,
  name: string,
): string | null | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as ConfigEntry;
    if (entry.section === section && entry.subsection === undefined && entry.name === name)
      return entry.value;
  }
  return undefined;
}

/** Submodule repositories under `<common dir>/modules`, searched a few levels deep. */
function absorbedSubmodules(commonDir: string, into: Repository[], depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const modules = join(commonDir, 'modules');
  let names: string[];
  try {
    names = readdirSync(modules);
  } catch {
    return undefined;
  }
  const walk = (directory: string, level: number): string | undefined => {
    if (level > 4) return undefined;
    let children: string[];
    try {
      children = readdirSync(directory);
    } catch {
      return undefined;
    }
    for (const child of children) {
      const path = join(directory, child);
      if (!isDirectory(path)) continue;
      if (existsSync(join(path, 'config')) || looksLikeGitDirectory(path)) {
        if (into.length >= maxSubmodules) return `the repository has more than ${maxSubmodules} submodules`;
        into.push({ gitDir: path, workTree: undefined, role: 'a submodule' });
        const nested = absorbedSubmodules(path, into, depth + 1);
        if (nested) return nested;
      } else {
        const deeper = walk(path, level + 1);
        if (deeper) return deeper;
      }
    }
    return undefined;
  };
  if (names.length === 0) return undefined;
  return walk(modules, 0);
}

/** Submodules checked out with their own `.git` inside the working tree, as `.gitmodules` lists them. */
function embeddedSubmodules(workTree: string, into: Repository[]): string | undefined {
  const listed = readConfigFile(join(workTree, '.gitmodules'));
  if (listed === 'missing' || !listed.ok) return undefined;
  for (const entry of listed.entries) {
    if (entry.section !== 'submodule' || entry.name !== 'path' || !entry.value) continue;
    const path = resolve(workTree, entry.value);
    const inside = relative(workTree, path);
    // A submodule at `..sub` is inside the work tree; only a first segment of exactly `..` leaves it.
    if (inside === '' || inside === '..' || inside.startsWith('../') || isAbsolute(inside)) continue;
    const dotGit = join(path, '.git');
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(dotGit);
    } catch {
      continue;
    }
    if (into.length >= maxSubmodules) return `the repository has more than ${maxSubmodules} submodules`;
    if (info.isDirectory()) into.push({ gitDir: dotGit, workTree: path, role: 'a submodule' });
    else if (info.isFile()) {
      const target = readGitFile(dotGit);
      if (typeof target !== 'string') return target.error;
      into.push({ gitDir: target, workTree: path, role: 'a submodule' });
    }
  }
  return undefined;
}

/** "the repository configuration", "a submodule's configuration". */
const configurationOf = (repository: Repository): string =>
  repository.role === 'a submodule' ? "a submodule's configuration" : `${repository.role} configuration`;

/** Judges one repository's configuration files and hooks; returns the files read or why git must ask. */
function inspectRepository(
  repository: Repository,
  home: string,
  submodules: Repository[] | undefined,
): { files: string[]; reads: string[]; storeReads: StoreRead[] } | { reason: string } {
  const common = commonDirectory(repository.gitDir);
  if (typeof common !== 'string')
    return { reason: `${common.error}, so the repository configuration cannot be inspected` };
  const files: string[] = [];
  const entries: ConfigEntry[] = [];
  const included: StoreRead[] = [];
  const ownConfig = join(common, 'config');
  for (const file of [ownConfig, join(repository.gitDir, 'config.worktree')]) {
    const parsed = readConfigWithIncludes(file, home);
    if (parsed === 'missing') continue;
    if (!parsed.ok)
      return { reason: `${parsed.reason}, so the configuration of ${repository.role} cannot be inspected` };
    files.push(...new Set(parsed.entries.map((entry) => entry.file)));
    if (!files.includes(file)) files.push(file);
    entries.push(...parsed.entries);
    included.push(...includedReads(parsed.entries, file, repository, common, file === ownConfig));
  }
  for (const entry of entries) {
    if (isIncludeEntry(entry)) continue;
    const concern = entryConcern(entry);
    if (concern !== undefined)
      return {
        reason: `${configurationOf(repository)} sets ${shownKey(entry, [common, repository.gitDir, repository.workTree])} in ${entry.file}, ${concern}`,
      };
  }
  const configuredTree = lastValue(entries, 'core', 'worktree');
  const workTree =
    repository.workTree ??
    (configuredTree ? resolveHome(configuredTree, repository.gitDir, home) : undefined);
  const reads = configuredReads(
    entries,
    { gitDir: repository.gitDir, workTree: workTree ?? repository.gitDir },
    home,
  );
  if (typeof reads === 'string') return { reason: `${configurationOf(repository)} ${reads}` };
  const hooksPath = lastValue(entries, 'core', 'hookspath');
  const hooks = hooksPath
    ? resolveHome(hooksPath, workTree ?? repository.gitDir, home)
    : join(common, 'hooks');
  for (const hook of readOnlyHooks) {
    const path = join(hooks, hook);
    if (existsSync(path))
      return {
        reason: `${repository.role} has a ${hook} hook (${path}), which git runs even for commands that only read`,
      };
  }
  if (submodules) {
    const problem =
      absorbedSubmodules(common, submodules) ??
      (workTree ? embeddedSubmodules(workTree, submodules) : undefined);
    if (problem) return { reason: `${problem}, so the submodules cannot be inspected` };
  }
  return { files, reads, storeReads: [...storeReads(repository, common), ...included] };
}

/**
 * The files a repository's configuration includes (`include.path`, `includeIf.*.path`) are reads of
 * the command: `git config --list`, `git remote -v` and any key's effect print what they hold, so
 * `include.path = ~/work/.git/config` would show another repository's remote URL and its token. They
 * are judged as the stores are, when the directory holding the repository is a working directory;
 * the shared configuration of a real linked worktree (`git worktree add`) is the user's own.
 */
function includedReads(
  entries: readonly ConfigEntry[],
  file: string,
  repository: Repository,
  common: string,
  shared: boolean,
): StoreRead[] {
  if (shared && common !== repository.gitDir && repository.workTree !== undefined)
    if (isLinkedWorktree(repository.gitDir, common, repository.workTree)) return [];
  const namedIn = repository.workTree ?? repository.gitDir;
  const reads: StoreRead[] = [];
  for (const path of new Set(entries.map((entry) => entry.file)))
    if (path !== file) reads.push({ path, namedIn, what: `${file} includes a file, which git reads:` });
  return reads;
}

const physical = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/**
 * The stores a repository's git reads objects and history from, as the directory holding its
 * `.git` names them: the git directory and object store themselves (a `.git` symbolic link or
 * gitdir file can lead to another repository of the user's), unless the git directory is a linked
 * worktree's that names this very working tree back (`git worktree add` writes that; a repository
 * cannot forge it in a directory it does not control), and every `objects/info/alternates` entry.
 */
function storeReads(repository: Repository, common: string): StoreRead[] {
  const namedIn = repository.workTree ?? repository.gitDir;
  const objects = join(common, 'objects');
  const reads: StoreRead[] = [];
  if (repository.workTree !== undefined && !isLinkedWorktree(repository.gitDir, common, repository.workTree))
    reads.push({ path: physical(repository.gitDir), namedIn }, { path: physical(objects), namedIn });
  const alternates = readOwnFileSync(join(objects, 'info', 'alternates'), { maxBytes: 65536 });
  if (alternates.kind === 'read')
    for (const line of alternates.text.split('\n')) {
      const entry = line.trim();
      if (entry !== '' && !entry.startsWith('#')) reads.push({ path: resolve(objects, entry), namedIn });
    }
  else if (alternates.kind === 'refused') reads.push({ path: join(objects, 'info', 'alternates'), namedIn });
  return reads;
}

/**
 * Whether `gitDir` is a linked worktree's, laid out as git lays it out (`<common>/worktrees/<name>`)
 * and naming `workTree/.git` in its `gitdir` file. A gitdir the repository planted inside the
 * project could name anything back, so the layout under the common directory is required too.
 */
function isLinkedWorktree(gitDir: string, common: string, workTree: string): boolean {
  const real = physical(gitDir);
  if (dirname(dirname(real)) !== physical(common) || !real.includes('/worktrees/')) return false;
  if (!existsSync(join(gitDir, 'commondir'))) return false;
  try {
    const read = readOwnFileSync(join(gitDir, 'gitdir'), { maxBytes: 4096 });
    if (read.kind !== 'read') return false;
    const named = resolve(gitDir, read.text.replace(/\r?\n$/, ''));
    return physical(named) === physical(join(workTree, '.git'));
  } catch {
    return false;
  }
}

/**
 * The paths the path-valued keys of {@link pathValuedKeys} name, resolved as git resolves them
 * (`~/` from home, relative to the git directory or the top of the working tree), or why one
 * cannot be known before git runs (`~user/`, `%(prefix)/`).
 */
function configuredReads(
  entries: readonly ConfigEntry[],
  bases: { gitDir: string; workTree: string },
  home: string,
): string[] | string {
  const reads: string[] = [];
  for (const entry of entries) {
    if (entry.subsection !== undefined || isIncludeEntry(entry)) continue;
    const key = pathValuedKeys[`${entry.section}.${entry.name}`];
    if (key === undefined || !entry.value) continue;
    const value = entry.value.replace(/^:\(optional\)/, '');
    if (/^~[^/]/.test(value) || value.startsWith('%('))
      return `sets ${entryKey(entry)} to ${value}, ${key.role}, which is only known when git runs`;
    reads.push(resolveHome(value, key.base === 'git-dir' ? bases.gitDir : bases.workTree, home));
  }
  return reads;
}

/**
 * The inspection itself: which repository the invocation uses, and whether any configuration it
 * (or the command line) sets could make git run a program. Pure file reads, cached per file.
 */
export function inspectGitInvocation(invocation: GitInvocation): GitInspection {
  const gitVariable = invocation.envVars.find(
    (variable) =>
      variable.name.startsWith('GIT_') &&
      !(variable.value !== undefined && isHarmlessEnvAssignment(variable.name, variable.value, 'git')),
  );
  if (gitVariable)
    return ask(`it sets ${gitVariable.name}, which changes the repository or configuration git reads`);
  if (invocation.cwd === null)
    return ask(
      'the directory git runs in is only known when the command runs, so the configuration of its repository cannot be inspected',
    );
  const options = readGlobalOptions(invocation, invocation.cwd);
  if (typeof options === 'string')
    return ask(`${options}, so the configuration git reads cannot be inspected`);
  for (const entry of options.entries) {
    const concern = entryConcern(entry);
    if (concern !== undefined) return ask(`the command line sets ${entryKey(entry)} (-c), ${concern}`);
  }
  const commandLineReads = configuredReads(
    options.entries,
    { gitDir: options.directory, workTree: options.directory },
    invocation.home,
  );
  if (typeof commandLineReads === 'string') return ask(`the command line ${commandLineReads}`);
  const reads = [...commandLineReads];
  const stores: StoreRead[] = [];
  let repositories: Repository[];
  if (options.gitDir !== undefined || options.bare) {
    const gitDir = options.gitDir ?? options.directory;
    const workTree = options.workTree ?? (options.bare ? undefined : options.directory);
    repositories = isDirectory(gitDir) ? [{ gitDir, workTree, role: 'the repository' }] : [];
  } else {
    const discovered = discover(options.directory);
    if ('error' in discovered)
      return ask(`${discovered.error}, so the repository git would use cannot be inspected`);
    repositories = discovered.map((repository) =>
      options.workTree === undefined ? repository : { ...repository, workTree: options.workTree },
    );
  }
  if (repositories.length === 0)
    return { ok: true, detail: `no repository is above ${options.directory}`, ...readsOf(reads) };
  const files: string[] = [];
  const submodules: Repository[] = [];
  for (const repository of repositories) {
    const judged = inspectRepository(repository, invocation.home, submodules);
    if ('reason' in judged) return ask(judged.reason);
    files.push(...judged.files);
    reads.push(...judged.reads);
    stores.push(...judged.storeReads);
  }
  for (let index = 0; index < submodules.length; index++) {
    const judged = inspectRepository(submodules[index] as Repository, invocation.home, undefined);
    if ('reason' in judged) return ask(judged.reason);
    files.push(...judged.files);
    reads.push(...judged.reads);
    stores.push(...judged.storeReads);
  }
  const where = repositories.map((repository) => repository.gitDir).join(', ');
  return {
    ok: true,
    detail: `repository ${where}: ${files.length} configuration file${files.length === 1 ? '' : 's'} inspected${submodules.length > 0 ? ` (with ${submodules.length} submodule${submodules.length === 1 ? '' : 's'})` : ''}, no key runs a program`,
    ...readsOf(reads),
    ...(stores.length > 0 ? { storeReads: stores } : {}),
  };
}

/** The `reads` field, present only when the configuration names something git opens. */
const readsOf = (reads: readonly string[]): { reads?: readonly string[] } =>
  reads.length > 0 ? { reads: [...new Set(reads)] } : {};
