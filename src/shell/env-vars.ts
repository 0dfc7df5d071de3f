/**
 * Environment variables in front of a command. `safe` ones may be skipped when matching allow rules
 * and keep a command read-only; `dangerous` ones make a program load or run other code and are never
 * auto-allowed; everything else is `neutral` (deny and ask rules still match past it, allow rules do not).
 */
export type EnvVarClass = 'safe' | 'dangerous' | 'neutral';

const safeNames = new Set([
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'CI',
  'COLUMNS',
  'LINES',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'GOOS',
  'GOARCH',
  'CGO_ENABLED',
  'GO111MODULE',
  'NODE_ENV',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONIOENCODING',
  'PYTHONHASHSEED',
  'DEBUG',
  'VERBOSE',
  'TIME_STYLE',
  'QUOTING_STYLE',
  'POSIXLY_CORRECT',
  'SOURCE_DATE_EPOCH',
]);

/** Variables that name or configure a program, library, startup file or shell parsing. */
const dangerousNames = new Set([
  'PATH',
  'IFS',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'EDITOR',
  'VISUAL',
  'BROWSER',
  'SHELL',
  'ENV',
  'BASH_ENV',
  'ZDOTDIR',
  'CDPATH',
  'PROMPT_COMMAND',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'GLOBIGNORE',
  'HOME',
  'TMPDIR',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PYTHONINSPECT',
  'PYTHONBREAKPOINT',
  'PYTHONWARNINGS',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'GEM_HOME',
  'GEM_PATH',
  'BUNDLE_GEMFILE',
  'JAVA_TOOL_OPTIONS',
  'JDK_JAVA_OPTIONS',
  '_JAVA_OPTIONS',
  'CLASSPATH',
  'LESSOPEN',
  'LESSCLOSE',
  'LESS',
  'LESSKEYIN',
  'LESSKEY',
  'LESSSECURE',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'DISPLAY',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'NPM_CONFIG_SCRIPT_SHELL',
  'NPM_CONFIG_USERCONFIG',
  'NPM_CONFIG_GLOBALCONFIG',
  'NPM_CONFIG_PREFIX',
  'YARN_RC_FILENAME',
  'COMPOSER_HOME',
  'CARGO_HOME',
  'RUSTC_WRAPPER',
  // -toolexec, -exec and -modfile run or load programs the value names.
  'GOFLAGS',
  'GOENV',
  'GOTOOLCHAIN',
  'RUSTC',
  'RUSTFLAGS',
  'CC',
  'CXX',
  'LD',
  'AR',
  'MAKEFLAGS',
  'MAKE',
  'CFLAGS',
  'LDFLAGS',
  'CPPFLAGS',
  'GCONV_PATH',
  'HOSTALIASES',
  'RESOLV_HOST_CONF',
  'MALLOC_CHECK_',
  'TAR_OPTIONS',
  'GZIP',
  'GREP_OPTIONS',
  'RIPGREP_CONFIG_PATH',
  'FZF_DEFAULT_COMMAND',
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_DIRS',
  'WGETRC',
  'CURL_HOME',
  'SSLKEYLOGFILE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'EMACSLOADPATH',
  'VIMINIT',
  'EXINIT',
  'MYVIMRC',
  'INPUTRC',
  'TERMINFO',
  'TERMCAP',
]);

/** Prefixes of dangerous families: dynamic linker, git, ssh, docker, npm config, bash function exports. */
const dangerousPrefixes = [
  'LD_',
  'DYLD_',
  'GIT_',
  'BASH_FUNC_',
  'SSH_',
  'DOCKER_',
  'KUBECONFIG',
  'NPM_CONFIG_',
  'npm_config_',
  'YARN_',
  'PIP_',
  'PYTHON',
  'PERL',
  'RUBY',
  'NODE_',
  'JAVA_',
  'LESS',
  'MANOPT',
  'GNUPG',
  'GPG_',
  'GH_',
  'AWS_',
  'GOOGLE_',
  'AZURE_',
  'ANTHROPIC_',
  'OPENAI_',
];

/** Classifies one environment variable name (case-sensitive, as the shell is). */
export function classifyEnvVar(name: string): EnvVarClass {
  // Exact safe names first: a few (PYTHONUNBUFFERED, NODE_ENV) share a prefix with dangerous families.
  if (safeNames.has(name)) return 'safe';
  if (dangerousNames.has(name)) return 'dangerous';
  if (dangerousPrefixes.some((prefix) => name.startsWith(prefix))) return 'dangerous';
  if (/%%$/.test(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'dangerous';
  if (/^LC_[A-Z]+$/.test(name) || /^[A-Z]+_COLORS$/.test(name)) return 'safe';
  return 'neutral';
}

/**
 * Assignments that make a program *less* able to run other code: a pager set to `cat` or to
 * nothing, and git switches that only turn prompts and optional locks off. They keep a command
 * read-only although their names belong to dangerous families; any other value does not.
 */
const harmlessAssignments: Readonly<Record<string, readonly string[]>> = {
  GIT_PAGER: ['cat', ''],
  PAGER: ['cat', ''],
  GIT_TERMINAL_PROMPT: ['0'],
  GIT_OPTIONAL_LOCKS: ['0'],
};

/**
 * Whether `NAME=value` (the value exactly as resolved) is one of the harmless assignments. Given the
 * program it prefixes, `IFS=…` in front of the `read` builtin is harmless too: a prefix assignment
 * lasts for that one builtin and only changes how it splits the line it reads.
 */
export function isHarmlessEnvAssignment(name: string, value: string, program?: string): boolean {
  if (name === 'IFS') return program === 'read';
  return Object.hasOwn(harmlessAssignments, name) && (harmlessAssignments[name] ?? []).includes(value);
}

/** zsh parameters with lowercase names that are tied to lookups or code (`path` is `$PATH`). */
const zshSpecialNames = new Set([
  'path',
  'cdpath',
  'fpath',
  'module_path',
  'manpath',
  'mailpath',
  'fignore',
  'psvar',
  'watch',
  'prompt',
  'commands',
  'functions',
  'aliases',
  'galiases',
  'saliases',
  'builtins',
  'options',
  'parameters',
  'nameddirs',
  'userdirs',
  'modules',
  'mapfile',
  'histchars',
  'signals',
  'status',
  'pipestatus',
  'argv',
]);

/**
 * Whether a construct may assign the variable without asking (a `for` loop variable, a `read`
 * target): a lowercase name that no shell or program gives a meaning. Exported variables are
 * uppercase by convention (PATH, HOME, GIT_DIR), and assigning one of them would change what
 * every later program of the line sees.
 */
export function isLocalVariableName(name: string): boolean {
  return (
    /^[a-z_][a-z0-9_]*$/.test(name) && !zshSpecialNames.has(name) && classifyEnvVar(name) !== 'dangerous'
  );
}
