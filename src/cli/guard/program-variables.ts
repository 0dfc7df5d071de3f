import { basename } from 'node:path';
import {
  type AnalyzedSubcommand,
  analyzeCommand,
  classifyEnvVar,
  isHarmlessEnvAssignment,
} from '../../shell/index.ts';
import type { HostAssignment } from './host-environment.ts';

/**
 * Variables that a project's host configuration sets and that only some programs read: git's
 * `GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF` or `GIT_DIR`, node's `NODE_OPTIONS=--require …`, ripgrep's
 * `RIPGREP_CONFIG_PATH`, GNU tar's `TAR_OPTIONS`, a pager, an editor. Each makes the program that
 * reads it run or load code the value names, so a command that runs that program runs the
 * project's code; a command that does not (`ls src` under `NODE_OPTIONS`) is unaffected.
 *
 * The question is answered as a table: which of these variables each program reads. A program the
 * table does not know (a project script, `npm run`, `make`, an interpreter, a relative path) may
 * run anything and reads all of them (fail closed); the everyday programs are listed with what
 * they read, most of them nothing.
 */

/** A group of variables, by exact name or name prefix. */
interface VariableFamily {
  readonly names: ReadonlySet<string>;
  readonly prefixes: readonly string[];
}

function family(names: readonly string[], prefixes: readonly string[] = []): VariableFamily {
  return { names: new Set(names), prefixes };
}

function inFamily(name: string, group: VariableFamily): boolean {
  return group.names.has(name) || group.prefixes.some((prefix) => name.startsWith(prefix));
}

const pagerFamily = family(
  ['PAGER', 'MANPAGER', 'MANOPT', 'MANROFFOPT', 'BROWSER', 'SYSTEMD_PAGER'],
  ['LESS'],
);

/**
 * What git reads: its own variables (`GIT_DIR`, `GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`,
 * `GIT_PAGER`, `GIT_EDITOR`, `GIT_ASKPASS`, `GIT_EXEC_PATH`…), where it finds the user's
 * configuration (`HOME`, `XDG_CONFIG_HOME`, whose `core.fsmonitor` runs on `git status`), the pager
 * and editor it starts, and what ssh and gpg read when it runs them.
 */
const gitFamily = family(
  ['HOME', 'XDG_CONFIG_HOME', 'EDITOR', 'VISUAL', 'PAGER', 'GNUPGHOME'],
  ['GIT_', 'SSH_', 'LESS', 'GPG_'],
);

const none = family([]);

/** Programs and the variables of the list they read; `none` for programs that read none of them. */
const programFamilies: ReadonlyMap<string, VariableFamily> = new Map([
  ...[
    'ls',
    'cat',
    'head',
    'tail',
    'wc',
    'echo',
    'printf',
    'pwd',
    'true',
    'false',
    'test',
    '[',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'stat',
    'file',
    'du',
    'df',
    'date',
    'uniq',
    'cut',
    'tr',
    'nl',
    'od',
    'xxd',
    'hexdump',
    'cmp',
    'comm',
    'diff',
    'seq',
    'sleep',
    'touch',
    'mkdir',
    'rmdir',
    'rm',
    'cp',
    'mv',
    'ln',
    'chmod',
    'tee',
    'tac',
    'rev',
    'paste',
    'join',
    'fold',
    'fmt',
    'expand',
    'unexpand',
    'column',
    'which',
    'type',
    'printenv',
    'id',
    'whoami',
    'uname',
    'hostname',
    'tree',
    'grep',
    'egrep',
    'fgrep',
    'sed',
    'jq',
    'md5sum',
    'sha1sum',
    'sha256sum',
    'sha512sum',
    'cksum',
    'base64',
    'strings',
    'cd',
    'pushd',
    'popd',
    'dirs',
    'export',
    'unset',
    'read',
    'exit',
    'return',
    'set',
    'shift',
    'wait',
    'jobs',
    'kill',
    'ps',
    'free',
    'uptime',
    'nproc',
    'env',
    'xargs',
    'timeout',
    'nice',
    'time',
    'find',
    'sort',
    'split',
    'csplit',
    'truncate',
    'mktemp',
    'yes',
    'locale',
  ].map((program): [string, VariableFamily] => [program, none]),
  ['git', gitFamily],
  ['less', pagerFamily],
  ['more', pagerFamily],
  ['man', pagerFamily],
  ['rg', family(['RIPGREP_CONFIG_PATH'])],
  ['tar', family(['TAR_OPTIONS'])],
  ['awk', family(['AWKPATH', 'AWKLIBPATH'])],
  ['gawk', family(['AWKPATH', 'AWKLIBPATH'])],
  ['mawk', none],
  ['curl', family(['CURL_HOME', 'XDG_CONFIG_HOME', 'HOME'], ['OPENSSL_'])],
  ['wget', family(['WGETRC', 'HOME'], ['OPENSSL_'])],
  ['ssh', family(['HOME'], ['SSH_', 'OPENSSL_'])],
  ['scp', family(['HOME'], ['SSH_', 'OPENSSL_'])],
]);

/** Words after which `find` runs a program of its own. */
const findRunners = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Options of otherwise listed programs that name a program to run: the program is judged as unknown. */
const programOptions =
  /^--(?:compress-program|use-compress-program|to-command|checkpoint-action|rsh-command|info-script|new-volume-script|pre)\b/;

/** Variables the table knows beyond the engine's own list of dangerous prefix assignments. */
const extraCodeVariables = family(
  [
    'AWKPATH',
    'AWKLIBPATH',
    'MAKEFILES',
    'GNUMAKEFLAGS',
    'RUSTDOC',
    'RUSTDOCFLAGS',
    'RUSTC_WORKSPACE_WRAPPER',
    'RSYNC_RSH',
    'RSYNC_CONNECT_PROG',
    'GCC_EXEC_PREFIX',
    'COMPILER_PATH',
    'CGO_CFLAGS',
    'CGO_LDFLAGS',
    // OpenSSL loads engines and providers its configuration names (node, curl, git over https).
    'OPENSSL_CONF',
    'OPENSSL_MODULES',
    'OPENSSL_ENGINES',
    // Runtimes that load code a variable names at start.
    'DOTNET_STARTUP_HOOKS',
    'DOTNET_ADDITIONAL_DEPS',
    'COR_PROFILER_PATH',
    'LUA_INIT',
    'LUA_PATH',
    'LUA_CPATH',
    'PHPRC',
    'PHP_INI_SCAN_DIR',
    'R_PROFILE',
    'R_PROFILE_USER',
    'R_ENVIRON',
    'R_ENVIRON_USER',
    'ERL_FLAGS',
    'ERL_AFLAGS',
    'ERL_ZFLAGS',
    'ELIXIR_ERL_OPTIONS',
    'JULIA_LOAD_PATH',
    'JULIA_DEPOT_PATH',
    'TCLLIBPATH',
    'GUILE_LOAD_PATH',
    // Where a tool finds its toolchain, interpreter or plugins: the project's own binaries run.
    'GOROOT',
    'RUSTUP_HOME',
    'RUSTUP_TOOLCHAIN',
    'VIRTUAL_ENV',
    'CONDA_PREFIX',
    'GRADLE_USER_HOME',
    'MAVEN_ARGS',
    'SBT_OPTS',
    'ANT_OPTS',
    'TF_CLI_CONFIG_FILE',
    'TERRAFORM_CONFIG',
    'HELM_PLUGINS',
  ],
  ['CARGO_', 'UV_', 'POETRY_', 'BUNDLE_', 'COMPOSER_', 'CORECLR_', 'CLOUDSDK_'],
);

/**
 * Variables of the dangerous families that carry data, not code: credentials, regions, project and
 * model names, commit identities, proxies. A host's `.env` holds them routinely.
 */
const dataNames =
  /(?:^|_)(?:API_?KEY|KEY|KEY_ID|TOKEN|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|ACCESS_KEY_ID|SESSION_TOKEN|PASSWORD|PASSWD|REGION|DEFAULT_REGION|PROJECT|PROJECT_ID|LOCATION|ORG_ID|ORGANIZATION|MODEL|BASE_URL|ENDPOINT|API_VERSION|DEPLOYMENT|PROFILE)$/;
const dataExact = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_MERGE_AUTOEDIT',
  'GIT_LFS_SKIP_SMUDGE',
  'GIT_FLUSH',
  'DISPLAY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'NODE_ENV',
  'NODE_NO_WARNINGS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONIOENCODING',
  'SSH_AUTH_SOCK',
  'TMPDIR',
  // The shell's own and the whole PATH are judged for every command (`shellCodeAssignment`).
  'PATH',
]);

/** Names that locate a file, a folder or a program to run. */
const locatingName =
  /_(?:DIR|FILE|PATH|HOME|CONFIG|CONF|COMMAND|CMD|EXECUTABLE|PROGRAM|BINARY|HELPER|PLUGINS)$/;

/** Model providers' settings (keys, endpoints, projects): the agent's business, no program's code. */
const providerPrefixes = ['ANTHROPIC_', 'OPENAI_', 'GOOGLE_', 'GEMINI_', 'AZURE_', 'VERTEX_'];

/** `NODE_OPTIONS` values that only tune the runtime (memory, warnings, source maps), never load code. */
const harmlessNodeOption =
  /^--(?:max-old-space-size|max-semi-space-size|stack-size|max-http-header-size|unhandled-rejections|dns-result-order|title|trace-warnings|trace-deprecation|trace-uncaught|no-warnings|no-deprecation|enable-source-maps|openssl-legacy-provider|use-openssl-ca|use-bundled-ca|experimental-vm-modules|no-experimental-fetch|experimental-fetch|no-experimental-global-webcrypto|preserve-symlinks|preserve-symlinks-main|throw-deprecation|pending-deprecation|heapsnapshot-near-heap-limit|tls-min-v1\.[0-3]|tls-max-v1\.[0-3])(?:=[A-Za-z0-9._-]*)?$/;

/** Programs a pager or editor variable may name without running project code (options after it are flags). */
const knownViewers = new Set([
  'less',
  'more',
  'most',
  'cat',
  'vi',
  'vim',
  'nvim',
  'nano',
  'emacs',
  'code',
  'subl',
]);
const viewerVariables = new Set(['PAGER', 'GIT_PAGER', 'MANPAGER', 'EDITOR', 'VISUAL', 'GIT_EDITOR']);

/** Whether an assignment the host hands its shell can make a program run or load code it names. */
export function isProgramCodeAssignment(name: string, value: string): boolean {
  if (dataExact.has(name) || dataNames.test(name)) return false;
  // Model providers' and AWS settings are data, but for the files and folders they name (AWS's
  // configuration holds `credential_process` commands; `AZURE_CONFIG_DIR` the CLI's extensions).
  if (
    (providerPrefixes.some((prefix) => name.startsWith(prefix)) || name.startsWith('AWS_')) &&
    !locatingName.test(name)
  )
    return false;
  if (isHarmlessEnvAssignment(name, value)) return false;
  if (name === 'NODE_OPTIONS')
    return !value
      .split(/\s+/)
      .filter((word) => word !== '')
      .every((word) => harmlessNodeOption.test(word));
  // Display switches only: not `-k` (a lesskey file can set LESSOPEN), `-o` (a log file), `+` (commands).
  if (
    name === 'LESS' &&
    value.split(/\s+/).every((word) => word === '' || /^-[FRXSiIMmNnJWgqQrsuUwcCeEfaBd~]+$/.test(word))
  )
    return false;
  if (viewerVariables.has(name)) {
    const [program, ...options] = value.trim().split(/\s+/);
    if (
      program !== undefined &&
      knownViewers.has(program) &&
      options.every((word) => /^-[A-Za-z0-9-]*$/.test(word))
    )
      return false;
  }
  return classifyEnvVar(name) === 'dangerous' || inFamily(name, extraCodeVariables);
}

/**
 * git subcommands that only query: they update no ref (a ref update runs the
 * `reference-transaction` hook), start no hook, helper script or browser, only the pager and the
 * editor of git's own family.
 */
const gitQueries = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'cat-file',
  'blame',
  'grep',
  'describe',
  'shortlog',
  'diff-tree',
  'diff-index',
  'diff-files',
  'rev-list',
  'merge-base',
  'name-rev',
  'for-each-ref',
  'show-ref',
  'var',
  'version',
  'check-ignore',
  'check-attr',
  'count-objects',
  'whatchanged',
  'config',
]);

/** git's options before the subcommand that take the next word as their value. */
const gitValueOptions = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
]);

/** The git subcommand word, or undefined when it cannot be told. */
function gitSubcommand(argv: readonly string[]): string | undefined {
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (gitValueOptions.has(word)) {
      index++;
      continue;
    }
    if (word.startsWith('-')) continue;
    return word;
  }
  return undefined;
}

/** Everything: the family of a program the table does not know. */
const everything: VariableFamily = { names: new Set(), prefixes: [''] };

/** The variables the program `argv[0]` (with these arguments) reads, as families. */
function familiesOf(argv: readonly string[]): VariableFamily[] {
  const program = argv[0] ?? '';
  // A path (`./x`, `/opt/bin/git`) is not the program the table describes.
  const known = program.includes('/') ? undefined : programFamilies.get(program);
  if (!known) return [everything];
  if (program === 'git') {
    const subcommand = gitSubcommand(argv);
    return subcommand !== undefined && gitQueries.has(subcommand) ? [gitFamily] : [everything];
  }
  const families = [known];
  // `cd` looks a relative folder up in `CDPATH` first, and goes to `HOME` without one.
  if (program === 'cd' || program === 'pushd') {
    const folders = argv.slice(1).filter((word) => !word.startsWith('-'));
    if (folders.length === 0) families.push(family(['HOME']));
    if (folders.some((word) => !word.startsWith('/'))) families.push(family(['CDPATH']));
  }
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (programOptions.test(word)) return [everything];
    if (program === 'find' && findRunners.has(word)) families.push(...familiesOf(argv.slice(index + 1)));
    if (word.startsWith('~')) families.push(family(['HOME']));
  }
  return families;
}

/** A program-specific assignment that a command runs the reader of. */
export interface ProgramAssignment {
  assignment: HostAssignment;
  /** The program that reads it, as the command names it; undefined when the command could not be analysed. */
  program?: string;
}

/**
 * The first of `assignments` that a program of `command` reads, or undefined. A command the
 * analysis cannot follow reads all of them; `CDPATH` matters to a `cd` into a relative folder.
 * Call with the shell parser loaded.
 */
export function programAssignment(
  assignments: readonly HostAssignment[],
  command: string,
  cwd: string,
  home: string,
): ProgramAssignment | undefined {
  const code = assignments.filter(({ name, value }) => isProgramCodeAssignment(name, value));
  if (code.length === 0) return undefined;
  const analysis = analyzeCommand(command, { cwd, home });
  if (analysis.kind !== 'analyzed') return code[0] && { assignment: code[0] };
  for (const subcommand of analysis.subcommands) {
    const found = readerOf(subcommand, code);
    if (found) return found;
  }
  return undefined;
}

function readerOf(
  subcommand: AnalyzedSubcommand,
  code: readonly HostAssignment[],
): ProgramAssignment | undefined {
  // A prefix assignment of the same name replaces the host's value for that command alone.
  const own = new Set(subcommand.envVars.map((variable) => variable.name));
  const families = familiesOf(subcommand.argv);
  for (const assignment of code) {
    if (own.has(assignment.name)) continue;
    if (families.some((group) => inFamily(assignment.name, group)))
      return { assignment, program: basename(subcommand.argv[0] ?? '') || subcommand.text };
  }
  return undefined;
}
