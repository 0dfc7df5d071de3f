import type { ConfigEntry } from './config-file.ts';

/**
 * The allowlist of repository configuration keys that cannot make git run a program. A key that is
 * not listed here — `core.fsmonitor` with a path, `diff.external`, `diff.<driver>.textconv`,
 * `filter.<driver>.clean`, `gpg.program`, `core.sshCommand`, `alias.*`, `core.pager`, and every
 * key nobody has thought of yet — makes the git invocation ask. Keys are matched as
 * `section.name` (no subsection) or `section.*.name` (any subsection), lower-case.
 */

const bool = /^(?:|true|false|yes|no|on|off|1|0)$/i;

/** Keys whose value git never runs, whatever it is. */
const inert = new Set([
  // core
  'core.repositoryformatversion',
  'core.filemode',
  'core.bare',
  'core.logallrefupdates',
  'core.ignorecase',
  'core.symlinks',
  'core.precomposeunicode',
  'core.autocrlf',
  'core.eol',
  'core.safecrlf',
  'core.quotepath',
  'core.abbrev',
  'core.untrackedcache',
  'core.splitindex',
  'core.sparsecheckout',
  'core.sparsecheckoutcone',
  'core.commitgraph',
  'core.multipackindex',
  'core.checkstat',
  'core.trustctime',
  'core.preloadindex',
  'core.fscache',
  'core.longpaths',
  'core.protectntfs',
  'core.protecthfs',
  'core.whitespace',
  'core.compression',
  'core.loosecompression',
  'core.packedgitlimit',
  'core.packedgitwindowsize',
  'core.deltabasecachelimit',
  'core.bigfilethreshold',
  'core.warnambiguousrefs',
  'core.notesref',
  'core.sharedrepository',
  'core.hidedotfiles',
  'core.excludesfile',
  'core.attributesfile',
  // Hooks: read-only commands run none once efferent sets core.hooksPath=/dev/null for them, and the
  // inspection looks for the hooks an index write or ref update would run in the folder it names.
  'core.hookspath',
  'core.worktree',
  'core.fsmonitorhookversion',
  'core.fsync',
  'core.fsyncmethod',
  'core.commentchar',
  'core.commentstring',
  'core.checkroundtripencoding',
  'core.filesreftimeout',
  'core.packedrefstimeout',
  'core.maxtreedepth',
  // extensions git knows (an unknown one makes git refuse the repository)
  'extensions.objectformat',
  'extensions.compatobjectformat',
  'extensions.worktreeconfig',
  'extensions.refstorage',
  'extensions.partialclone',
  'extensions.preciousobjects',
  'extensions.noop',
  'extensions.noop-v1',
  // remotes and branches (URLs are checked separately)
  'remote.*.fetch',
  'remote.*.push',
  'remote.*.tagopt',
  'remote.*.prune',
  'remote.*.prunetags',
  'remote.*.mirror',
  'remote.*.skipdefaultupdate',
  'remote.*.skipfetchall',
  'remote.*.promisor',
  'remote.*.partialclonefilter',
  'remote.*.followremotehead',
  'branch.*.remote',
  'branch.*.merge',
  'branch.*.rebase',
  'branch.*.pushremote',
  'branch.*.description',
  'branch.autosetupmerge',
  'branch.autosetuprebase',
  'branch.sort',
  'checkout.defaultremote',
  'checkout.workers',
  'clone.defaultremotename',
  'init.defaultbranch',
  'worktree.guessremote',
  // identity and signing choices (the signing program itself comes from the user's own config)
  'user.name',
  'user.email',
  'user.signingkey',
  'user.useconfigonly',
  'author.name',
  'author.email',
  'committer.name',
  'committer.email',
  'commit.gpgsign',
  'commit.cleanup',
  'commit.status',
  'commit.verbose',
  'commit.template',
  'tag.gpgsign',
  'tag.sort',
  'tag.forcesignannotated',
  'gpg.format',
  'log.showsignature',
  'merge.verifysignatures',
  // behaviour of porcelain
  'pull.rebase',
  'pull.ff',
  'push.default',
  'push.autosetupremote',
  'push.followtags',
  'push.usebitmaps',
  'fetch.prune',
  'fetch.prunetags',
  'fetch.recursesubmodules',
  'fetch.writecommitgraph',
  'fetch.parallel',
  'fetch.showforcedupdates',
  'fetch.fsckobjects',
  'fetch.negotiationalgorithm',
  'fetch.output',
  'fetch.all',
  'transfer.fsckobjects',
  'receive.denycurrentbranch',
  'receive.denynonfastforwards',
  'receive.denydeletes',
  'receive.fsckobjects',
  'gc.auto',
  'gc.autopacklimit',
  'gc.autodetach',
  'gc.pruneexpire',
  'gc.reflogexpire',
  'gc.reflogexpireunreachable',
  'gc.writecommitgraph',
  'gc.worktreepruneexpire',
  'maintenance.auto',
  'merge.conflictstyle',
  'merge.ff',
  'merge.log',
  'merge.renames',
  'merge.renamelimit',
  'merge.directoryrenames',
  'merge.autostash',
  'merge.stat',
  'merge.*.name',
  'merge.*.recursive',
  'rebase.autosquash',
  'rebase.autostash',
  'rebase.updaterefs',
  'rebase.abbreviatecommands',
  'rebase.missingcommitscheck',
  'rebase.stat',
  'rebase.instructionformat',
  'rerere.enabled',
  'rerere.autoupdate',
  'apply.whitespace',
  'diff.renames',
  'diff.renamelimit',
  'diff.algorithm',
  'diff.mnemonicprefix',
  'diff.noprefix',
  'diff.relative',
  'diff.context',
  'diff.interhunkcontext',
  'diff.statgraphwidth',
  'diff.submodule',
  'diff.ignoresubmodules',
  'diff.indentheuristic',
  'diff.colormoved',
  'diff.colormovedws',
  'diff.wserrorhighlight',
  'diff.suppressblankempty',
  'diff.orderfile',
  'diff.dirstat',
  'diff.autorefreshindex',
  'diff.srcprefix',
  'diff.dstprefix',
  // diff drivers: how to find hunks and words, never a program (`textconv` and `command` are)
  'diff.*.binary',
  'diff.*.xfuncname',
  'diff.*.funcname',
  'diff.*.wordregex',
  'diff.*.cachetextconv',
  'status.showuntrackedfiles',
  'status.submodulesummary',
  'status.short',
  'status.branch',
  'status.relativepaths',
  'status.aheadbehind',
  'status.renames',
  'status.renamelimit',
  'status.showstash',
  'status.displaycommentprefix',
  'log.decorate',
  'log.date',
  'log.abbrevcommit',
  'log.showroot',
  'log.follow',
  'log.mailmap',
  'log.graphcolors',
  'log.excludedecoration',
  'log.initialdecorationset',
  'blame.date',
  'blame.showemail',
  'blame.blankboundary',
  'blame.showroot',
  'blame.coloring',
  'blame.ignorerevsfile',
  'blame.markunblamablelines',
  'blame.markignoredlines',
  'grep.linenumber',
  'grep.column',
  'grep.patterntype',
  'grep.extendedregexp',
  'grep.threads',
  'grep.fullname',
  'grep.fallbacktonoindex',
  'i18n.commitencoding',
  'i18n.logoutputencoding',
  'index.version',
  'index.threads',
  'index.skiphash',
  'index.sparse',
  'index.recordendofindexentries',
  'index.recordoffsettable',
  'feature.manyfiles',
  'feature.experimental',
  'pack.threads',
  'pack.windowmemory',
  'pack.depth',
  'pack.window',
  'pack.compression',
  'pack.usebitmaps',
  'pack.writebitmaphashcache',
  'notes.displayref',
  'versionsort.suffix',
  'column.ui',
  'column.branch',
  'column.status',
  'column.tag',
  'protocol.version',
  'safe.directory',
  // submodules (URLs and update modes are checked separately)
  'submodule.*.path',
  'submodule.*.active',
  'submodule.*.branch',
  'submodule.*.ignore',
  'submodule.*.shallow',
  'submodule.*.fetchrecursesubmodules',
  'submodule.recurse',
  'submodule.active',
  'submodule.fetchjobs',
  'submodule.propagatebranches',
  // git-lfs settings that name no program (custom transfers and extensions do)
  'lfs.repositoryformatversion',
  'lfs.url',
  'lfs.pushurl',
  'lfs.fetchinclude',
  'lfs.fetchexclude',
  'lfs.locksverify',
  'lfs.allowincompletepush',
  'lfs.concurrenttransfers',
  'lfs.*.access',
  'lfs.*.locksverify',
  'http.*.extraheader',
  'http.extraheader',
  'http.postbuffer',
  'http.version',
  'http.lowspeedlimit',
  'http.lowspeedtime',
]);

/**
 * Inert keys whose value names a file or directory git opens: git runs nothing from it, but the
 * repository chooses what git reads, and some of it reaches the output (`core.worktree` is the tree
 * `git diff` and `git grep` print; `git blame` prints the first bad line of `blame.ignoreRevsFile`).
 * Each value is a read the inspection hands back, judged like any other read of the command. Keys are
 * lower-case; `base` is what a relative value is relative to.
 */
export const pathValuedKeys: Readonly<Record<string, { base: 'git-dir' | 'work-tree'; role: string }>> = {
  'core.worktree': { base: 'git-dir', role: 'the working tree git reads' },
  'blame.ignorerevsfile': { base: 'work-tree', role: 'a file git blame prints lines of' },
  'core.excludesfile': { base: 'work-tree', role: 'an ignore file git reads' },
  'core.attributesfile': { base: 'work-tree', role: 'an attributes file git reads' },
  'diff.orderfile': { base: 'work-tree', role: 'an order file git diff reads' },
  'commit.template': { base: 'work-tree', role: 'a template git commit reads' },
};

/** Sections whose every key is display-only. */
const inertSections = new Set(['color', 'advice', 'pretty']);

/** The exact filter commands `git lfs install --local` writes. */
const lfsFilter: Readonly<Record<string, string>> = {
  clean: 'git-lfs clean -- %f',
  smudge: 'git-lfs smudge -- %f',
  process: 'git-lfs filter-process',
};

/**
 * Whether a remote or submodule URL names an ordinary transport. `<helper>::…` (`ext::`, `fd::`)
 * and unknown `scheme://` run helper programs; a host starting with `-` is an option injection.
 */
export function isInertRemoteUrl(url: string): boolean {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed.startsWith('-')) return false;
  if (/^[A-Za-z0-9][A-Za-z0-9+.-]*::/.test(trimmed)) return false;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)/.exec(trimmed);
  if (scheme) {
    const name = (scheme[1] as string).toLowerCase();
    if (!['http', 'https', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git', 'ftp', 'ftps'].includes(name))
      return false;
    const host = (scheme[2] as string).replace(/^[^@]*@/, '');
    return !host.startsWith('-');
  }
  const scp = /^([^/:]+):/.exec(trimmed);
  if (scp) return !(scp[1] as string).replace(/^[^@]*@/, '').startsWith('-');
  return true;
}

/** `section.name` or `section.<subsection>.name`, as git spells it. */
export function entryKey(entry: Pick<ConfigEntry, 'section' | 'subsection' | 'name'>): string {
  return entry.subsection === undefined
    ? `${entry.section}.${entry.name}`
    : `${entry.section}.${entry.subsection}.${entry.name}`;
}

/**
 * Why a configuration entry may make git run something, or undefined when it is inert. Include
 * directives are followed by the reader and are not judged here.
 */
export function entryConcern(entry: ConfigEntry): string | undefined {
  const { section, subsection, name } = entry;
  const value = entry.value ?? 'true';
  const generic = subsection === undefined ? `${section}.${name}` : `${section}.*.${name}`;
  if (inertSections.has(section)) return undefined;
  if (section === 'core' && subsection === undefined && name === 'fsmonitor')
    return bool.test(value) ? undefined : 'which runs a program on every status or diff';
  if (
    (section === 'remote' && (name === 'url' || name === 'pushurl')) ||
    (section === 'submodule' && name === 'url')
  )
    return isInertRemoteUrl(value) ? undefined : 'a URL that runs a transport program';
  if (section === 'url' && (name === 'insteadof' || name === 'pushinsteadof'))
    return subsection !== undefined && isInertRemoteUrl(subsection)
      ? undefined
      : 'which rewrites URLs to a transport program';
  if (section === 'submodule' && subsection !== undefined && name === 'update')
    return ['checkout', 'rebase', 'merge', 'none'].includes(value)
      ? undefined
      : 'which runs a command when submodules update';
  if (section === 'protocol' && name === 'allow' && value === 'never') return undefined;
  // Switching a helper off, or paging through cat, runs nothing the repository chose.
  if (section === 'core' && subsection === undefined && name === 'pager' && (value === '' || value === 'cat'))
    return undefined;
  if (section === 'diff' && subsection === undefined && name === 'external' && value === '') return undefined;
  if (section === 'pager' && subsection === undefined && bool.test(value)) return undefined;
  if (section === 'filter' && subsection === 'lfs') {
    if (name === 'required') return undefined;
    const expected = lfsFilter[name];
    return expected !== undefined && value === expected ? undefined : 'which runs a program on file contents';
  }
  if (inert.has(generic)) return undefined;
  if (subsection !== undefined && section === 'diff' && (name === 'textconv' || name === 'command'))
    return 'which runs a program on file contents';
  if (section === 'filter') return 'which runs a program on file contents';
  if (section === 'alias') return 'an alias, which can run a shell command or add options';
  if (
    /program$|command$|cmd$|^pager$|^editor$|^askpass$|hook|^helper$|^external$|^driver$|^textconv$|proxy$/.test(
      name,
    ) ||
    section === 'pager'
  )
    return 'which runs a program';
  return 'which efferent does not know to be inert';
}
