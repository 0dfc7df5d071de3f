/**
 * The command npm runs for the word it is given (class npm-command-names,
 * docs/decisions/security-npm-command-names.md): npm resolves its own aliases (`i`, `rm`, `x`, `t`),
 * typo aliases (`isntall`), camelCase (`installTest`) and any unambiguous abbreviation of a command or
 * alias (`pub`, `publ`). Taken from npm 11's command list.
 */

const npmCommands = [
  'access',
  'adduser',
  'approve-scripts',
  'audit',
  'bugs',
  'cache',
  'ci',
  'completion',
  'config',
  'dedupe',
  'deny-scripts',
  'deprecate',
  'diff',
  'dist-tag',
  'docs',
  'doctor',
  'edit',
  'exec',
  'explain',
  'explore',
  'find-dupes',
  'fund',
  'get',
  'help',
  'help-search',
  'init',
  'install',
  'install-ci-test',
  'install-scripts',
  'install-test',
  'link',
  'll',
  'login',
  'logout',
  'ls',
  'org',
  'outdated',
  'owner',
  'pack',
  'ping',
  'pkg',
  'prefix',
  'profile',
  'prune',
  'publish',
  'query',
  'rebuild',
  'repo',
  'restart',
  'root',
  'run',
  'sbom',
  'search',
  'set',
  'shrinkwrap',
  'stage',
  'star',
  'stars',
  'start',
  'stop',
  'team',
  'test',
  'token',
  'trust',
  'undeprecate',
  'uninstall',
  'unpublish',
  'unstar',
  'update',
  'version',
  'view',
  'whoami',
];

const npmAliases: Readonly<Record<string, string>> = {
  author: 'owner',
  home: 'docs',
  issues: 'bugs',
  info: 'view',
  show: 'view',
  find: 'search',
  add: 'install',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  un: 'uninstall',
  rb: 'rebuild',
  list: 'ls',
  ln: 'link',
  create: 'init',
  i: 'install',
  it: 'install-test',
  cit: 'install-ci-test',
  u: 'update',
  up: 'update',
  c: 'config',
  s: 'search',
  se: 'search',
  tst: 'test',
  t: 'test',
  ddp: 'dedupe',
  v: 'view',
  'run-script': 'run',
  'clean-install': 'ci',
  'clean-install-test': 'install-ci-test',
  x: 'exec',
  why: 'explain',
  la: 'll',
  verison: 'version',
  ic: 'ci',
  innit: 'init',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  hlep: 'help',
  'dist-tags': 'dist-tag',
  upgrade: 'update',
  udpate: 'update',
  rum: 'run',
  sit: 'install-ci-test',
  urn: 'run',
  ogr: 'org',
  'add-user': 'adduser',
};

const npmNames = [...npmCommands, ...Object.keys(npmAliases)];

/** The npm command a word names, as npm resolves it; undefined when it names none. */
export function npmCommandName(word: string): string | undefined {
  const written = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : word;
  let name: string | undefined = written;
  if (!npmNames.includes(written)) {
    const matches = npmNames.filter((candidate) => candidate.startsWith(written));
    name = matches.length === 1 ? matches[0] : undefined;
  }
  while (name !== undefined && Object.hasOwn(npmAliases, name)) name = npmAliases[name];
  return name;
}

/**
 * `npm pub x` spelled as `npm publish x`; empty unless the program is npm. Which option takes a
 * value is not known here (`npm --loglevel silent pub`), so the words that are not options are tried
 * in turn up to the first one npm knows; a wrong guess can only make a deny rule match more often.
 */
export function npmCanonicalSpellings(argv: readonly string[]): string[][] {
  const [program = '', ...args] = argv;
  if (program.slice(program.lastIndexOf('/') + 1) !== 'npm') return [];
  const spellings: string[][] = [];
  let tried = 0;
  for (let at = 0; at < args.length && tried < 4; at++) {
    const word = args[at] ?? '';
    if (word.startsWith('-')) continue;
    tried++;
    const name = npmCommandName(word);
    if (name === undefined) continue;
    // The first word npm knows is the command: later words (`npm run i`) are its arguments.
    const rest = args.slice(at + 1);
    if (name !== word) spellings.push(['npm', name, ...rest], ['npm', ...args.slice(0, at), name, ...rest]);
    break;
  }
  return spellings;
}
