/**
 * The names git runs a command by (class git-command-names, docs/decisions/security-git-command-names.md).
 * Any other first word after `git` is an alias from some configuration file, a typo that
 * `help.autocorrect` turns into a real command, or an external `git-NAME` program: it may run any git
 * command, so a rule on a git command cannot tell what it is.
 */

/** git's own commands: `git help -a` and the programs in git's exec path (git 2.39), plus newer ones. */
const gitCommandNames = new Set([
  'add',
  'add--interactive',
  'am',
  'annotate',
  'apply',
  'archimport',
  'archive',
  'backfill',
  'bisect',
  'bisect--helper',
  'blame',
  'branch',
  'bugreport',
  'bundle',
  'cat-file',
  'check-attr',
  'check-ignore',
  'check-mailmap',
  'check-ref-format',
  'checkout',
  'checkout--worker',
  'checkout-index',
  'cherry',
  'cherry-pick',
  'citool',
  'clean',
  'clone',
  'column',
  'commit',
  'commit-graph',
  'commit-tree',
  'config',
  'count-objects',
  'credential',
  'credential-cache',
  'credential-cache--daemon',
  'credential-store',
  'cvsexportcommit',
  'cvsimport',
  'cvsserver',
  'daemon',
  'describe',
  'diagnose',
  'diff',
  'diff-files',
  'diff-index',
  'diff-tree',
  'difftool',
  'difftool--helper',
  'env--helper',
  'fast-export',
  'fast-import',
  'fetch',
  'fetch-pack',
  'filter-branch',
  'fmt-merge-msg',
  'for-each-ref',
  'for-each-repo',
  'format-patch',
  'fsck',
  'fsck-objects',
  'fsmonitor--daemon',
  'gc',
  'get-tar-commit-id',
  'grep',
  'gui',
  'hash-object',
  'help',
  'hook',
  'http-backend',
  'http-fetch',
  'http-push',
  'imap-send',
  'index-pack',
  'init',
  'init-db',
  'instaweb',
  'interpret-trailers',
  'last-modified',
  'log',
  'ls-files',
  'ls-remote',
  'ls-tree',
  'mailinfo',
  'mailsplit',
  'maintenance',
  'merge',
  'merge-base',
  'merge-file',
  'merge-index',
  'merge-octopus',
  'merge-one-file',
  'merge-ours',
  'merge-recursive',
  'merge-resolve',
  'merge-subtree',
  'merge-tree',
  'mergetool',
  'mergetool--lib',
  'mktag',
  'mktree',
  'multi-pack-index',
  'mv',
  'name-rev',
  'notes',
  'p4',
  'pack-objects',
  'pack-redundant',
  'pack-refs',
  'patch-id',
  'prune',
  'prune-packed',
  'pull',
  'push',
  'quiltimport',
  'range-diff',
  'read-tree',
  'rebase',
  'receive-pack',
  'reflog',
  'refs',
  'remote',
  'remote-ext',
  'remote-fd',
  'remote-ftp',
  'remote-ftps',
  'remote-http',
  'remote-https',
  'repack',
  'replace',
  'replay',
  'request-pull',
  'rerere',
  'reset',
  'restore',
  'rev-list',
  'rev-parse',
  'revert',
  'rm',
  'send-email',
  'send-pack',
  'sh-i18n',
  'sh-i18n--envsubst',
  'sh-prompt',
  'sh-setup',
  'shell',
  'shortlog',
  'show',
  'show-branch',
  'show-index',
  'show-ref',
  'sparse-checkout',
  'stage',
  'stash',
  'status',
  'stripspace',
  'submodule',
  'submodule--helper',
  'subtree',
  'svn',
  'switch',
  'symbolic-ref',
  'tag',
  'unpack-file',
  'unpack-objects',
  'update-index',
  'update-ref',
  'update-server-info',
  'upload-archive',
  'upload-pack',
  'var',
  'verify-commit',
  'verify-pack',
  'verify-tag',
  'version',
  'web--browse',
  'whatchanged',
  'worktree',
  'write-tree',
]);

/** git's global options that take the next word as their value. */
export const gitValuedGlobalOptions: ReadonlySet<string> = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
  '--attr-source',
]);

const dashedGitProgram = /^git-([a-z][a-z0-9-]*)$/;

const basenameOf = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/** `git-push origin` (or `/usr/lib/git-core/git-push origin`) spelled as `git push origin`; undefined otherwise. */
export function dashedGitSpelling(argv: readonly string[]): string[] | undefined {
  const [program = '', ...rest] = argv;
  const name = dashedGitProgram.exec(basenameOf(program))?.[1];
  return name === undefined ? undefined : ['git', name, ...rest];
}

/** The word git takes as its command, past its global options; undefined when there is none. */
function gitCommandWord(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (gitValuedGlobalOptions.has(word)) index++;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

/**
 * The command word of a git call when it is not one of git's own commands (`git p` with
 * `alias.p = push`, `git psuh`, `git-foo`); undefined for `git push`, `git status` and non-git calls.
 */
export function unknownGitCommand(argv: readonly string[]): string | undefined {
  const spelled = dashedGitSpelling(argv) ?? argv;
  if (basenameOf(spelled[0] ?? '') !== 'git') return undefined;
  const word = gitCommandWord(spelled.slice(1));
  return word === undefined || gitCommandNames.has(word) ? undefined : word;
}
