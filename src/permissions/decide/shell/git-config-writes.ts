import { isIncludeEntry } from '../../git-config/config-file.ts';
import { entryConcern } from '../../git-config/inert-keys.ts';
import { commandLineEntry } from '../../git-config/inspect-git.ts';
import { dashedGitSpelling, gitValuedGlobalOptions } from './git-command-names.ts';

/**
 * git commands that write git's own configuration without naming the file: `git config
 * core.hooksPath h`, `git remote set-url origin 'ext::sh -c …'`, `git clone -c core.fsmonitor=… . x`,
 * `git init --template=tpl` (which copies `tpl/hooks/` into `.git/hooks/`). The file they change
 * (`.git/config`, `~/.gitconfig`) is protected, and its keys decide what git, editors and the user's
 * own shell later run; no word of the command names it, so the protected-name search saw nothing
 * and bypassPermissions (or `Bash(git *)`) let them through.
 *
 * A key is judged the way the git inspector judges a key it reads (`entryConcern`): only keys that can
 * make git run a program (or that pull in other files) are a concern; `git config user.email x`,
 * `git remote add origin https://…` and every read stay as they were.
 */

/** What a git command writes into git's configuration that can make git run code. */
export interface GitConfigWrite {
  /** The key, option or action as the command spells it, and why it matters (one phrase). */
  change: string;
}

/**
 * Keys git reads without running them, which the inspection of a git call can leave alone, but
 * which decide what git runs or touches on every later call once written: where hooks come from,
 * where files are checked out, whose repositories git trusts, which template new repositories copy.
 */
const writeConcerns: Readonly<Record<string, string>> = {
  'core.hookspath': 'which names the folder git runs hooks from',
  'core.worktree': 'which moves the tree git checks files out into',
  'safe.directory': "which lets git load other users' repositories with their configuration",
  'init.templatedir': 'which names a folder whose hooks every new repository gets',
};

const basenameOf = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/** The concern with setting `key` to `value`, or undefined when git never runs it. */
function keyConcern(key: string, value: string): GitConfigWrite | undefined {
  const entry = commandLineEntry(key, value);
  // A key git cannot parse makes git fail before it writes anything.
  if (entry === undefined) return undefined;
  if (isIncludeEntry(entry)) return { change: `${key}, which includes another file's configuration` };
  const written =
    entry.subsection === undefined ? writeConcerns[`${entry.section}.${entry.name}`] : undefined;
  const concern = written ?? entryConcern(entry);
  return concern === undefined ? undefined : { change: `${key}, ${concern}` };
}

/** The concern with a `key=value` setting (a bare key is `true`, as git reads it). */
function settingConcern(setting: string): GitConfigWrite | undefined {
  const equals = setting.indexOf('=');
  return equals === -1
    ? keyConcern(setting, 'true')
    : keyConcern(setting.slice(0, equals), setting.slice(equals + 1));
}

/** `git config` actions that only read. */
const readActions = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--get-color',
  '--get-colorbool',
  '-l',
  '--list',
]);
const removeActions = new Set(['--unset', '--unset-all', '--remove-section']);
const setActions = new Set(['--add', '--replace-all']);
/** `git config` options that take the next word as their value (unless glued with `=`). */
const configValued = new Set(['-f', '--file', '--blob', '-t', '--type', '--default', '--comment', '--value']);
/** `git config` flags that change neither what is written nor where. */
const configFlags = new Set([
  '--global',
  '--system',
  '--local',
  '--worktree',
  '--includes',
  '--no-includes',
  '-z',
  '--null',
  '--name-only',
  '--show-origin',
  '--show-scope',
  '--bool',
  '--int',
  '--bool-or-int',
  '--path',
  '--expiry-date',
  '--no-type',
  '--fixed-value',
  '--all',
  '--append',
  '--',
]);
/** The subcommands of `git config` since git 2.46 (`git config set k v`). */
const configSubcommands = new Set([
  'get',
  'set',
  'unset',
  'rename-section',
  'remove-section',
  'list',
  'edit',
]);

function configWrite(args: readonly string[]): GitConfigWrite | undefined {
  let action: 'read' | 'remove' | 'set' | 'rename' | 'edit' | undefined;
  let namedFile = false;
  let unknown: string | undefined;
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    if (/^-f./.test(word)) {
      namedFile = true; // -fFILE
      continue;
    }
    const name = word.startsWith('--') && word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
    if (name === '-f' || name === '--file' || name === '--blob') namedFile = true;
    if (configValued.has(name)) {
      if (name === word) index++;
    } else if (readActions.has(name)) action ??= 'read';
    else if (removeActions.has(name)) action ??= 'remove';
    else if (setActions.has(name)) action = 'set';
    else if (name === '--rename-section') action = 'rename';
    else if (name === '-e' || name === '--edit') action = 'edit';
    else if (!configFlags.has(name)) unknown ??= word;
  }
  let keyAt = 0;
  if (action === undefined && configSubcommands.has(positionals[0] ?? '')) {
    const subcommand = positionals[0];
    keyAt = 1;
    action =
      subcommand === 'set'
        ? 'set'
        : subcommand === 'edit'
          ? 'edit'
          : subcommand === 'rename-section'
            ? 'rename'
            : subcommand === 'unset' || subcommand === 'remove-section'
              ? 'remove'
              : 'read';
  }
  const key = positionals[keyAt];
  const value = positionals[keyAt + 1];
  if (action === undefined) action = value === undefined ? 'read' : 'set';
  if (action === 'read' || action === 'remove') return undefined;
  // A file named with -f/--file is a path of the command, judged as any path it names.
  if (namedFile) return undefined;
  if (action === 'edit')
    return { change: '--edit, which opens the configuration in an editor, where any key can be set' };
  if (action === 'rename')
    return {
      change: `--rename-section ${key ?? ''}, which can give the keys of a section a meaning git runs (a section renamed \`core\`)`,
    };
  if (unknown !== undefined)
    return { change: `${unknown}, an option efferent does not know, with a key and a value` };
  if (key === undefined || value === undefined) return undefined;
  return keyConcern(key, value);
}

/** `git remote add NAME URL`, `git remote set-url [--push] NAME URL`: the URL is a configuration value. */
function remoteWrite(args: readonly string[]): GitConfigWrite | undefined {
  const [command, ...rest] = args;
  if (command !== 'add' && command !== 'set-url') return undefined;
  const positionals: string[] = [];
  let push = false;
  for (let index = 0; index < rest.length; index++) {
    const word = rest[index] ?? '';
    if (word === '--delete') return undefined;
    if (word === '--push') push = true;
    else if (word === '-t' || word === '-m') index++;
    else if (!word.startsWith('-') || word === '-') positionals.push(word);
  }
  const [name, url] = positionals;
  if (name === undefined || url === undefined) return undefined;
  return keyConcern(`remote.${name}.${push ? 'pushurl' : 'url'}`, url);
}

/** `git submodule add URL [PATH]`, `git submodule set-url PATH URL`. */
function submoduleWrite(args: readonly string[]): GitConfigWrite | undefined {
  const command = args.find((word) => !word.startsWith('-'));
  if (command !== 'add' && command !== 'set-url') return undefined;
  const rest = args.slice(args.indexOf(command) + 1);
  const positionals: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const word = rest[index] ?? '';
    if (['-b', '--branch', '--name', '--reference', '--depth'].includes(word)) index++;
    else if (!word.startsWith('-') || word === '-') positionals.push(word);
  }
  const url = command === 'add' ? positionals[0] : positionals[1];
  if (url === undefined) return undefined;
  return keyConcern(`submodule.${positionals[command === 'add' ? 1 : 0] ?? 'new'}.url`, url);
}

/**
 * `git clone` and `git init`: `-c key=value` (clone) is written into the new repository's
 * configuration, and `--template DIR` copies DIR's `hooks/` into its `.git/hooks/`.
 */
function newRepositoryWrite(command: 'clone' | 'init', args: readonly string[]): GitConfigWrite | undefined {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') break;
    const glued = word.startsWith('--') && word.includes('=');
    const name = glued ? word.slice(0, word.indexOf('=')) : word;
    const value = glued ? word.slice(word.indexOf('=') + 1) : args[index + 1];
    if (name === '--template') {
      if (!glued) index++;
      // An empty template directory copies nothing.
      if (value !== '')
        return {
          change: `--template ${value ?? ''}, which copies that folder's hooks into the new repository, where git runs them`,
        };
    } else if (command === 'clone' && (name === '-c' || name === '--config')) {
      if (!glued) index++;
      const concern = settingConcern(value ?? '');
      if (concern) return concern;
    } else if (command === 'clone' && word.startsWith('-c') && word.length > 2) {
      const concern = settingConcern(word.slice(2));
      if (concern) return concern;
    }
  }
  return undefined;
}

/**
 * What a git command writes into git's configuration that can make git (or the programs that run
 * git: editors, prompts, the user's shell) run code later; undefined for every other command.
 */
export function gitConfigWrite(argv: readonly string[]): GitConfigWrite | undefined {
  const spelled = dashedGitSpelling(argv) ?? argv;
  if (basenameOf(spelled[0] ?? '') !== 'git') return undefined;
  let index = 1;
  for (; index < spelled.length; index++) {
    const word = spelled[index] ?? '';
    if (gitValuedGlobalOptions.has(word)) index++;
    else if (!word.startsWith('-')) break;
  }
  const command = spelled[index];
  const args = spelled.slice(index + 1);
  switch (command) {
    case 'config':
      return configWrite(args);
    case 'remote':
      return remoteWrite(args);
    case 'submodule':
      return submoduleWrite(args);
    case 'clone':
    case 'init':
      return newRepositoryWrite(command, args);
    case 'maintenance': {
      const action = args.find((word) => !word.startsWith('-'));
      return action === 'start' || action === 'register'
        ? {
            change: `maintenance ${action}, which registers the repository for scheduled git runs that load its configuration outside any session`,
          }
        : undefined;
    }
    default:
      return undefined;
  }
}
