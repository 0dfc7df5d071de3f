/**
 * Paths whose content makes a later program run code on the host (shell start-up files, git
 * internals, hook managers, editor and tool configuration, Python `.pth` files, login autostart
 * entries) or changes efferent's own configuration. One list: the permission engine asks before
 * writing anything it names, and the Bash sandbox keeps the same entries read-only. Names compare
 * case-insensitively.
 */

/** Start-up files that shells and common tools read and that can make them run code in a later session. */
export const startupFileNames: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.inputrc',
  '.envrc',
  '.direnvrc',
  '.gitconfig',
  '.npmrc',
  '.xprofile',
  '.xinitrc',
  '.xsession',
  '.xsessionrc',
  '.pam_environment',
  '.vimrc',
  '.gvimrc',
  '.exrc',
  '.tmux.conf',
  '.screenrc',
  '.irbrc',
  '.pryrc',
  '.rprofile',
  '.psqlrc',
  '.gdbinit',
  '.lldbinit',
  '.condarc',
  '.gemrc',
];

/** Directory names protected wherever they appear in a path. */
export const protectedDirectoryNames: readonly string[] = [
  '.git',
  '.vscode',
  '.idea',
  '.husky',
  '.cargo',
  '.devcontainer',
  '.mvn',
  '.claude',
  '.efferent',
  '.cursor',
  '.codex',
  '.gemini',
  // Other agents and editors start MCP servers, hooks or language servers named in these on open.
  '.roo',
  '.kiro',
  '.amazonq',
  '.continue',
  '.zed',
  // Credentials and the programs they name (ssh `rc` and `ProxyCommand`, aws `credential_process`,
  // kube `exec` plugins, docker credential helpers, pip index and build settings).
  '.ssh',
  '.gnupg',
  '.aws',
  '.kube',
  '.docker',
  '.pip',
];

/**
 * Multi-segment locations protected wherever they appear (`~/.config/autostart`, or the same under
 * any directory): desktop autostart, systemd user units, login environment, tool configuration
 * that names programs, and directories on the user's PATH or Python path.
 */
export const protectedNestedPaths: readonly string[] = [
  '.config/git',
  '.config/fish',
  '.config/autostart',
  '.config/autostart-scripts',
  '.config/environment.d',
  '.config/systemd',
  '.config/direnv',
  '.config/pip',
  '.config/plasma-workspace/env',
  '.config/nvim',
  '.config/containers',
  '.local/bin',
  '.local/lib',
  '.local/share/systemd',
  // yarn runs the release `yarnPath` names and the plugins `.yarnrc.yml` lists; its cache stays writable.
  '.yarn/releases',
  '.yarn/plugins',
  '.gradle/init.d',
  '.gradle/init.gradle',
  '.gradle/init.gradle.kts',
];

/** File names protected wherever they appear. */
export const protectedFileNames: readonly string[] = [
  ...startupFileNames,
  '.gitmodules',
  '.gitattributes',
  '.pnp.cjs',
  '.pnp.js',
  '.pnp.loader.mjs',
  'bunfig.toml',
  '.bunfig.toml',
  '.bazelrc',
  '.bazelversion',
  '.bazeliskrc',
  '.pre-commit-config.yaml',
  '.pre-commit-config.yml',
  '.devcontainer.json',
  '.ripgreprc',
  'pyrightconfig.json',
  '.mcp.json',
  '.claude.json',
  '.efferent.json',
  '.netrc',
  '.curlrc',
  '.wgetrc',
  '.pypirc',
  '.aider.conf.yml',
  'sitecustomize.py',
  'usercustomize.py',
];

/**
 * File-name patterns protected wherever they appear (lefthook reads `lefthook.yml`,
 * `.lefthook.yml`, `lefthook-local.yaml`, …; yarn reads every `.yarnrc*`).
 */
export const protectedFilePatterns: readonly RegExp[] = [
  /^\.yarnrc/,
  /^\.?lefthook/,
  /-wrapper\.properties$/,
  /^\.bazel/,
];

/** Path patterns: a `.pth` file in any site-packages runs its `import` lines at every Python start. */
const protectedPathPatterns: ReadonlyArray<{ pattern: RegExp; reason: string }> = [
  {
    pattern: /\/(?:site|dist)-packages\/[^/]+\.pth$/i,
    reason: 'Python runs the import lines of .pth files at every start',
  },
];

/** Concrete spellings of {@link protectedFilePatterns}, for consumers that bind paths one by one. */
const patternSpellings: readonly string[] = [
  '.yarnrc',
  '.yarnrc.yml',
  '.yarnrc.yaml',
  'lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yml',
  '.lefthook.yaml',
  'lefthook-local.yml',
  'lefthook-local.yaml',
  '.lefthook-local.yml',
  '.lefthook-local.yaml',
  '.bazelrc',
];

/**
 * Entries the Bash sandbox keeps read-only when they exist at the top of a writable directory:
 * every protected file and directory name, nested location and pattern spelling, except the ones
 * the sandbox handles itself (`.git`, whose hooks and config it protects inside a writable
 * repository, and efferent's and Claude's settings folders, which it always protects).
 */
export const sandboxReadOnlyWorkspaceEntries: readonly string[] = [
  ...new Set(
    [...protectedFileNames, ...protectedDirectoryNames, ...protectedNestedPaths, ...patternSpellings].filter(
      (entry) => !['.git', '.efferent', '.claude'].includes(entry),
    ),
  ),
];

/**
 * Entries under the user's home the Bash sandbox keeps read-only (created as empty placeholders
 * when missing) whenever home is writable: start-up files, credentials and the nested locations.
 */
export const sandboxReadOnlyHomeEntries: readonly string[] = [
  ...new Set([
    ...startupFileNames,
    '.ssh',
    '.gnupg',
    '.aws',
    '.kube',
    '.docker',
    '.pip',
    '.cargo',
    ...protectedNestedPaths,
    '.efferent',
    '.claude',
  ]),
];

/** Subdirectories of protected directories that agents may write (worktrees they create). */
const unprotectedSubdirectories = [
  ['.claude', 'worktrees'],
  ['.efferent', 'worktrees'],
] as const;

const lower = (list: readonly string[]) => new Set(list.map((entry) => entry.toLowerCase()));
const directoryNames = lower(protectedDirectoryNames);
const fileNames = lower(protectedFileNames);
const nested = protectedNestedPaths.map((entry) => entry.toLowerCase().split('/'));

/** Why writing this path could make a later program run code, or undefined when it could not. */
export function protectedEntryReason(path: string): string | undefined {
  const segments = path.split('/').filter((segment) => segment !== '');
  const lowered = segments.map((segment) => segment.toLowerCase());
  for (let index = 0; index < lowered.length; index++) {
    for (const parts of nested) {
      if (parts.every((part, offset) => lowered[index + offset] === part))
        return `it is inside ${segments.slice(index, index + parts.length).join('/')}/, which can run code later`;
    }
    const segment = lowered[index] ?? '';
    if (!directoryNames.has(segment)) continue;
    const next = lowered[index + 1];
    if (unprotectedSubdirectories.some(([dir, sub]) => dir === segment && sub === next)) continue;
    return `it is inside ${segments[index]}/`;
  }
  const name = segments.at(-1) ?? '';
  const lowerName = name.toLowerCase();
  if (fileNames.has(lowerName) || protectedFilePatterns.some((pattern) => pattern.test(lowerName)))
    return `${name} can run code or change configuration`;
  const matched = protectedPathPatterns.find(({ pattern }) => pattern.test(path));
  if (matched) return matched.reason;
  return undefined;
}
