import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import type { Verdict } from '../verdict.ts';
import { projectCodeAsk } from './subcommand-checks.ts';

/**
 * Python puts a directory first on its import path before it runs anything named by `-m` or `-c`:
 * the directory it runs in (`python3 -m json.tool`, `python3 -c …`). A module or package there
 * whose name is one Python would otherwise take from its own library (`json/`, `argparse.py`) or
 * from an installed tool people run with `-m` (`pip/`, `pytest.py`) replaces it, so a rule such as
 * `Bash(python3 -m json.tool:*)` would run the repository's file. When such a call is about to be
 * allowed, that directory is listed and the call asks when it holds one; `-I`, `-P` and
 * `PYTHONSAFEPATH` (which keep the directory off the path), `--version` and `--help` are left alone.
 * Only Python invocations pay for the listing; bypassPermissions is left alone, as the git inspection is.
 */

/** `sys.stdlib_module_names` (CPython 3.11) with the names later versions added. */
const standardLibrary: ReadonlySet<string> = new Set([
  '__future__',
  '_abc',
  '_aix_support',
  '_android_support',
  '_apple_support',
  '_ast',
  '_asyncio',
  '_bisect',
  '_blake2',
  '_bootsubprocess',
  '_bz2',
  '_codecs',
  '_codecs_cn',
  '_codecs_hk',
  '_codecs_iso2022',
  '_codecs_jp',
  '_codecs_kr',
  '_codecs_tw',
  '_collections',
  '_collections_abc',
  '_colorize',
  '_compat_pickle',
  '_compression',
  '_contextvars',
  '_crypt',
  '_csv',
  '_ctypes',
  '_curses',
  '_curses_panel',
  '_datetime',
  '_dbm',
  '_decimal',
  '_elementtree',
  '_frozen_importlib',
  '_frozen_importlib_external',
  '_functools',
  '_gdbm',
  '_hashlib',
  '_heapq',
  '_imp',
  '_interpchannels',
  '_interpqueues',
  '_interpreters',
  '_io',
  '_ios_support',
  '_json',
  '_locale',
  '_lsprof',
  '_lzma',
  '_markupbase',
  '_md5',
  '_msi',
  '_multibytecodec',
  '_multiprocessing',
  '_opcode',
  '_opcode_metadata',
  '_operator',
  '_osx_support',
  '_overlapped',
  '_pickle',
  '_posixshmem',
  '_posixsubprocess',
  '_py_abc',
  '_pydatetime',
  '_pydecimal',
  '_pyio',
  '_pylong',
  '_pyrepl',
  '_queue',
  '_random',
  '_scproxy',
  '_sha1',
  '_sha256',
  '_sha3',
  '_sha512',
  '_signal',
  '_sitebuiltins',
  '_socket',
  '_sqlite3',
  '_sre',
  '_ssl',
  '_stat',
  '_statistics',
  '_string',
  '_strptime',
  '_struct',
  '_suggestions',
  '_symtable',
  '_sysconfig',
  '_testinternalcapi',
  '_testlimitedcapi',
  '_thread',
  '_threading_local',
  '_tkinter',
  '_tokenize',
  '_tracemalloc',
  '_typing',
  '_uuid',
  '_warnings',
  '_weakref',
  '_weakrefset',
  '_winapi',
  '_wmi',
  '_zoneinfo',
  'abc',
  'aifc',
  'antigravity',
  'argparse',
  'array',
  'ast',
  'asynchat',
  'asyncio',
  'asyncore',
  'atexit',
  'audioop',
  'base64',
  'bdb',
  'binascii',
  'bisect',
  'builtins',
  'bz2',
  'cProfile',
  'calendar',
  'cgi',
  'cgitb',
  'chunk',
  'cmath',
  'cmd',
  'code',
  'codecs',
  'codeop',
  'collections',
  'colorsys',
  'compileall',
  'concurrent',
  'configparser',
  'contextlib',
  'contextvars',
  'copy',
  'copyreg',
  'crypt',
  'csv',
  'ctypes',
  'curses',
  'dataclasses',
  'datetime',
  'dbm',
  'decimal',
  'difflib',
  'dis',
  'distutils',
  'doctest',
  'email',
  'encodings',
  'ensurepip',
  'enum',
  'errno',
  'faulthandler',
  'fcntl',
  'filecmp',
  'fileinput',
  'fnmatch',
  'fractions',
  'ftplib',
  'functools',
  'gc',
  'genericpath',
  'getopt',
  'getpass',
  'gettext',
  'glob',
  'graphlib',
  'grp',
  'gzip',
  'hashlib',
  'heapq',
  'hmac',
  'html',
  'http',
  'idlelib',
  'imaplib',
  'imghdr',
  'imp',
  'importlib',
  'inspect',
  'io',
  'ipaddress',
  'itertools',
  'json',
  'keyword',
  'lib2to3',
  'linecache',
  'locale',
  'logging',
  'lzma',
  'mailbox',
  'mailcap',
  'marshal',
  'math',
  'mimetypes',
  'mmap',
  'modulefinder',
  'msilib',
  'msvcrt',
  'multiprocessing',
  'netrc',
  'nis',
  'nntplib',
  'nt',
  'ntpath',
  'nturl2path',
  'numbers',
  'opcode',
  'operator',
  'optparse',
  'os',
  'ossaudiodev',
  'pathlib',
  'pdb',
  'pickle',
  'pickletools',
  'pipes',
  'pkgutil',
  'platform',
  'plistlib',
  'poplib',
  'posix',
  'posixpath',
  'pprint',
  'profile',
  'pstats',
  'pty',
  'pwd',
  'py_compile',
  'pyclbr',
  'pydoc',
  'pydoc_data',
  'pyexpat',
  'queue',
  'quopri',
  'random',
  're',
  'readline',
  'reprlib',
  'resource',
  'rlcompleter',
  'runpy',
  'sched',
  'secrets',
  'select',
  'selectors',
  'shelve',
  'shlex',
  'shutil',
  'signal',
  'site',
  'smtpd',
  'smtplib',
  'sndhdr',
  'socket',
  'socketserver',
  'spwd',
  'sqlite3',
  'sre_compile',
  'sre_constants',
  'sre_parse',
  'ssl',
  'stat',
  'statistics',
  'string',
  'stringprep',
  'struct',
  'subprocess',
  'sunau',
  'symtable',
  'sys',
  'sysconfig',
  'syslog',
  'tabnanny',
  'tarfile',
  'telnetlib',
  'tempfile',
  'termios',
  'textwrap',
  'this',
  'threading',
  'time',
  'timeit',
  'tkinter',
  'token',
  'tokenize',
  'tomllib',
  'trace',
  'traceback',
  'tracemalloc',
  'tty',
  'turtle',
  'turtledemo',
  'types',
  'typing',
  'unicodedata',
  'unittest',
  'urllib',
  'uu',
  'uuid',
  'venv',
  'warnings',
  'wave',
  'weakref',
  'webbrowser',
  'winreg',
  'winsound',
  'wsgiref',
  'xdrlib',
  'xml',
  'xmlrpc',
  'zipapp',
  'zipfile',
  'zipimport',
  'zlib',
  'zoneinfo',
]);

/**
 * Installed tools commonly run as `python -m NAME`; the project's own package under one of these
 * names would replace the tool the rule names.
 */
const runAsModuleTools: ReadonlySet<string> = new Set([
  'pip',
  'pipx',
  'pytest',
  '_pytest',
  'black',
  'mypy',
  'ruff',
  'flake8',
  'pylint',
  'isort',
  'coverage',
  'build',
  'twine',
  'virtualenv',
  'tox',
  'nox',
  'poetry',
  'setuptools',
  'wheel',
  'IPython',
  'jupyter',
  'pydoc_markdown',
  'uvicorn',
  'gunicorn',
  'django',
  'flask',
  'pdm',
  'hatch',
  'pre_commit',
  'yapf',
  'autopep8',
  'pyflakes',
  'pycodestyle',
  'bandit',
  'pyright',
  'sphinx',
  'mkdocs',
  'ensurepip',
  'uv',
]);

const pythonProgram = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?$/;

/** Short options that take a value (the rest of the word, or the next word). */
const valueOptions = new Set(['W', 'X']);
/** Options that print and exit before any import from the path. */
const exitingOptions = new Set(['--version', '--help', '--help-env', '--help-xoptions', '--help-all']);

type Launch = { kind: 'module'; name: string } | { kind: 'code' } | { kind: 'other' };

/** What a Python command line runs, and whether its directory stays off the import path. */
function readLaunch(argv: readonly string[]): { launch: Launch; safePath: boolean; ignoreEnv: boolean } {
  let safePath = false;
  let ignoreEnv = false;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] as string;
    if (exitingOptions.has(word)) return { launch: { kind: 'other' }, safePath, ignoreEnv };
    if (word === '--check-hash-based-pycs') {
      index++;
      continue;
    }
    if (!word.startsWith('-') || word === '-' || word === '--' || word.startsWith('--'))
      return { launch: { kind: 'other' }, safePath, ignoreEnv };
    for (let at = 1; at < word.length; at++) {
      const option = word[at] as string;
      if (option === 'V' || option === 'h') return { launch: { kind: 'other' }, safePath, ignoreEnv };
      if (option === 'I') {
        safePath = true;
        ignoreEnv = true;
      } else if (option === 'P') safePath = true;
      else if (option === 'E') ignoreEnv = true;
      if (option === 'm' || option === 'c') {
        const rest = word.slice(at + 1);
        const value = rest !== '' ? rest : argv[index + 1];
        if (option === 'c') return { launch: { kind: 'code' }, safePath, ignoreEnv };
        return { launch: { kind: 'module', name: value ?? '' }, safePath, ignoreEnv };
      }
      if (valueOptions.has(option)) {
        if (at === word.length - 1) index++;
        break;
      }
    }
  }
  return { launch: { kind: 'other' }, safePath, ignoreEnv };
}

/** The name a directory entry is importable as, or undefined. */
function importableName(entry: Dirent, directory: string): string | undefined {
  const file = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.pyc?|\.pyw|(?:\.[A-Za-z0-9_-]+)?\.so)$/.exec(entry.name);
  if (file && !entry.isDirectory()) return file[1];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry.name) || !(entry.isDirectory() || entry.isSymbolicLink()))
    return undefined;
  if (!concerns(entry.name)) return undefined;
  try {
    return readdirSync(join(directory, entry.name)).some((name) => name.startsWith('__init__.'))
      ? entry.name
      : undefined;
  } catch {
    return undefined;
  }
}

const concerns = (name: string): boolean => standardLibrary.has(name) || runAsModuleTools.has(name);

/** The first module in `directory` that would replace one of Python's own or an installed tool's. */
export function shadowingModule(directory: string): string | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const name = importableName(entry, directory);
    if (name !== undefined && concerns(name)) return entry.name;
  }
  return undefined;
}

/**
 * A Python call about to be allowed asks when the directory Python puts first on its import path
 * holds a module that replaces one of Python's own or a tool's (the repository's code would run).
 */
export function pythonPathBeforeAllow(
  subcommand: AnalyzedSubcommandLike,
  verdict: Verdict,
  mode: string,
): Verdict {
  // bypassPermissions runs any program anyway, as the git inspection skips it.
  if (verdict.behavior !== 'allow' || mode === 'bypassPermissions') return verdict;
  const program = subcommand.argv[0] ?? '';
  if (!pythonProgram.test(program.slice(program.lastIndexOf('/') + 1))) return verdict;
  const { launch, safePath, ignoreEnv } = readLaunch(subcommand.argv);
  if (launch.kind === 'other' || safePath) return verdict;
  if (!ignoreEnv && subcommand.envVars.some((v) => v.name === 'PYTHONSAFEPATH' && v.value !== ''))
    return verdict;
  const what = launch.kind === 'module' ? `\`-m ${launch.name}\`` : '`-c` code';
  const reason =
    subcommand.cwd === null
      ? `Python puts the directory it runs in first on its import path for ${what}, and that directory is only known when the command runs`
      : (() => {
          const found = shadowingModule(subcommand.cwd);
          return found === undefined
            ? undefined
            : `Python puts ${subcommand.cwd} first on its import path for ${what}, and ${found} there replaces the module of that name, so the project's code would run`;
        })();
  if (reason === undefined) return verdict;
  return projectCodeAsk(reason);
}
