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
  {
    // Machine-wide policies (efferent's managed settings, and those of the agents the guard stands
    // in front of): every session of every user obeys them, and they sit above every other level.
    pattern:
      /^\/(?:etc\/(?:efferent|claude-code|gemini-cli|codex)|library\/application support\/(?:claudecode|geminicli))(?:\/|$)/i,
    reason: 'it holds a machine-wide agent policy (managed settings), which every session obeys',
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

/**
 * One family of protected entries and why writing any of them lets a later, everyday action run
 * code or steer an agent. Entries match path segments case-insensitively after {@link foldName}:
 * `files` and `directories` anywhere in a path (a directory name also covers a file of that name),
 * `nested` as consecutive segments, `patterns` against the last segment.
 */
export interface ProtectedFamily {
  readonly family: string;
  /** Completes "NAME …": why a write here is not an ordinary source edit. */
  readonly reason: string;
  readonly files?: readonly string[];
  readonly directories?: readonly string[];
  readonly nested?: readonly string[];
  readonly patterns?: readonly RegExp[];
}

/**
 * Families the engine protects beyond the lists the sandbox shares (the sandbox keeps those
 * read-only at every writable root; these are judged by the engine on every write it sees).
 */
export const protectedFamilies: readonly ProtectedFamily[] = [
  {
    family: 'agent-instructions',
    reason: 'is read as instructions by efferent or another agent at the start of every session',
    files: [
      'claude.md',
      'claude.local.md',
      'agents.md',
      'agent.md',
      'efferent.md',
      'gemini.md',
      '.cursorrules',
      '.windsurfrules',
      '.goosehints',
      'qwen.md',
      '.roorules',
      '.rules',
      '.augment-guidelines',
    ],
    directories: ['.clinerules', '.windsurf', '.junie'],
    nested: [
      '.github/copilot-instructions.md',
      '.github/instructions',
      '.github/prompts',
      '.github/agents',
      '.github/chatmodes',
    ],
  },
  {
    family: 'agent-configuration',
    reason: 'names MCP servers, commands or hooks another agent starts when it opens the project',
    files: ['opencode.json', 'opencode.jsonc', '.continuerc.json', 'crush.json', '.crush.json', '.roomodes'],
    directories: [
      '.opencode',
      '.crush',
      '.codeium',
      '.goose',
      '.augment',
      '.trae',
      // Qwen Code, Kilo Code, Factory, Tabnine; OpenHands runs `.openhands/setup.sh` on opening.
      '.qwen',
      '.kilocode',
      '.factory',
      '.tabnine',
      '.openhands',
    ],
  },
  {
    family: 'commit-hook-commands',
    reason:
      'names the commands a git hook manager (lint-staged, simple-git-hooks, overcommit, commitlint) runs on the next commit',
    files: ['.overcommit.yml'],
    patterns: [
      /^\.lintstagedrc/,
      /^lint-staged\.config\./,
      /^\.?simple-git-hooks\./,
      /^\.?commitlint(rc)?(\.config)?\.[cm]?[jt]s$/,
    ],
  },
  {
    family: 'version-control',
    reason: 'is version-control configuration whose hooks, aliases and helpers run on everyday commands',
    files: ['.hgrc', 'hgrc'],
    directories: ['.hg', '.jj', '.subversion', '.bazaar'],
    nested: ['.config/jj', '.config/hg'],
  },
  {
    family: 'environment-loaders',
    reason:
      'is loaded by a shell hook (mise, direnv-like tools) that runs the commands it names on entering the directory',
    files: ['.rtx.toml', 'devbox.json', '.flox'],
    directories: ['.mise'],
    nested: ['.config/mise', '.config/mise.toml'],
    patterns: [/^\.?mise(\.[^/]*)?\.toml$/, /^\.?rtx(\.[^/]*)?\.toml$/],
  },
  {
    family: 'version-pins',
    reason:
      'selects the program every later command runs (pyenv and rbenv ran programs from paths it named, CVE-2022-35861; rust-toolchain names a toolchain path)',
    files: [
      '.python-version',
      '.ruby-version',
      '.node-version',
      '.nvmrc',
      '.tool-versions',
      'rust-toolchain',
      'rust-toolchain.toml',
      '.go-version',
      '.java-version',
      '.sdkmanrc',
      '.terraform-version',
      '.bun-version',
    ],
  },
  {
    family: 'interpreter-startup',
    reason: 'is run as code by an interpreter, debugger or client that starts in this directory',
    files: [
      '.ghci',
      '.pdbrc',
      '.pdbrc.py',
      '.erlang',
      '.iex.exs',
      '.ocamlinit',
      '.sqliterc',
      '.perldb',
      '.guile',
      '.sbclrc',
      '.octaverc',
      '.tclshrc',
      '.wishrc',
      '.pythonrc',
      '.pythonrc.py',
      '.pythonstartup',
      '.my.cnf',
      '.lesskey',
      '.ackrc',
      '.jvmopts',
      '.sbtopts',
    ],
    directories: ['.ipython', '.jupyter'],
    nested: ['.julia/config', '.config/lesskey'],
  },
  {
    family: 'editor-configuration',
    reason: 'is project configuration an editor or language server runs code from when it opens the project',
    files: [
      '.nvim.lua',
      '.nvimrc',
      '.lvimrc',
      '.emacs',
      '.dir-locals.el',
      '.dir-locals-2.el',
      '.spacemacs',
      '.kakrc',
    ],
    directories: ['.vim', '.emacs.d', '.doom.d', '.helix', '.theia', '.fleet'],
    patterns: [/\.code-workspace$/],
  },
  {
    family: 'package-manager-hooks',
    reason: 'is a package-manager hook file that runs as code on the next install',
    files: ['.pnpmfile.cjs', '.pnpmfile.mjs', '.pnpmfile.js', 'pnpmfile.js', 'pnpmfile.cjs'],
  },
];

/**
 * The form of a path segment the file systems efferent runs on may treat as the same name: NFC
 * (macOS normalises), without the code points HFS+ ignores (zero-width and direction marks,
 * CVE-2014-9390) and without the trailing dots and spaces Windows drops, lowercased.
 */
export function foldName(segment: string): string {
  return segment
    .normalize('NFC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/[. ]+$/, (tail) => (tail.length === segment.length ? tail : ''))
    .toLowerCase();
}

interface CompiledFamily {
  readonly family: ProtectedFamily;
  readonly names: ReadonlySet<string>;
  readonly nested: ReadonlyArray<readonly string[]>;
}

const compiledFamilies: readonly CompiledFamily[] = protectedFamilies.map((family) => ({
  family,
  names: new Set([...(family.files ?? []), ...(family.directories ?? [])]),
  nested: (family.nested ?? []).map((entry) => entry.split('/')),
}));

/** The family a path's segments fall into, with the segment that matched. */
function familyReason(segments: readonly string[], folded: readonly string[]): string | undefined {
  for (const { family, names, nested } of compiledFamilies) {
    for (let index = 0; index < folded.length; index++) {
      const segment = folded[index] ?? '';
      if (names.has(segment)) return `${segments[index]} ${family.reason}`;
      const parts = nested.find((entry) => entry.every((part, offset) => folded[index + offset] === part));
      if (parts) return `${segments.slice(index, index + parts.length).join('/')} ${family.reason}`;
    }
    const last = folded.at(-1) ?? '';
    if (family.patterns?.some((pattern) => pattern.test(last))) return `${segments.at(-1)} ${family.reason}`;
  }
  return undefined;
}

/**
 * Whether an entry named `name` at the root of a working directory belongs to a protected family
 * (its name or pattern, compared as {@link foldName} does): the Bash sandbox keeps such entries
 * read-only when they exist.
 */
export function isProtectedFamilyName(name: string): boolean {
  return familyReason([name], [foldName(name)]) !== undefined;
}

/** The families' nested locations (`.github/instructions`), as written. */
export const protectedFamilyNestedPaths: readonly string[] = protectedFamilies.flatMap(
  (family) => family.nested ?? [],
);

/** Subdirectories of protected directories that agents may write (worktrees they create). */
const unprotectedSubdirectories = [
  ['.claude', 'worktrees'],
  ['.efferent', 'worktrees'],
] as const;

const lower = (list: readonly string[]) => new Set(list.map((entry) => entry.toLowerCase()));
const directoryNames = lower(protectedDirectoryNames);
const fileNames = lower(protectedFileNames);
const nested = protectedNestedPaths.map((entry) => entry.toLowerCase().split('/'));

const lastSegments = (list: readonly string[]) => list.map((entry) => entry.split('/').at(-1) ?? entry);
/** Every last segment a protected path can end in, lowercased: the gate of {@link mayNameProtectedEntry}. */
const gateNames: ReadonlySet<string> = lower([
  ...protectedFileNames,
  ...protectedDirectoryNames,
  ...lastSegments(protectedNestedPaths),
  ...patternSpellings,
  ...protectedFamilies.flatMap((family) => [
    ...(family.files ?? []),
    ...(family.directories ?? []),
    ...lastSegments(family.nested ?? []),
  ]),
]);
const gatePatterns: readonly RegExp[] = [
  ...protectedFilePatterns,
  ...protectedFamilies.flatMap((family) => family.patterns ?? []),
];

/**
 * A cheap first test for one directory entry: false only when no path ending in `name` can be
 * protected by its own name ({@link protectedEntryReason} may still protect it as the content of a
 * protected directory). Names a file system may fold (non-ASCII, trailing dots or spaces) pass, so
 * the full check sees them.
 */
export function mayNameProtectedEntry(name: string): boolean {
  if (/[^\x21-\x7e]|[. ]$/.test(name)) return true;
  const lowered = name.toLowerCase();
  return gateNames.has(lowered) || gatePatterns.some((pattern) => pattern.test(lowered));
}

/** Every segment name that can make a path protected wherever it stands, lowercased. */
const segmentNames: readonly string[] = [
  ...new Set(
    [
      ...gateNames,
      ...protectedNestedPaths.map((entry) => entry.split('/')[0] ?? entry),
      ...protectedFamilies.flatMap((family) =>
        (family.nested ?? []).map((entry) => entry.split('/')[0] ?? entry),
      ),
    ].map((name) => name.toLowerCase()),
  ),
];
const escapeName = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * Every name a protected path can have as one of its segments, lowercased, with concrete spellings
 * of the name patterns: what a shell pattern (`.envr?`, `.clau*`) is compared with.
 */
export const protectedSegmentSpellings: readonly string[] = segmentNames;

/** A segment named like one of {@link segmentNames} that does not start with a dot, anywhere in a path. */
const undottedName = new RegExp(
  `(?:^|/)(?:${segmentNames
    .filter((name) => !name.startsWith('.'))
    .map(escapeName)
    .join('|')})(?:/|$)`,
  'i',
);
/** {@link gatePatterns} as one expression, case-insensitive (they are written for lowercased names). */
const anyGatePattern = new RegExp(gatePatterns.map((pattern) => `(?:${pattern.source})`).join('|'), 'i');
/** A segment a file system may fold into another name: non-ASCII, or ending in dots or spaces. */
const foldableSegment = /[^\x21-\x7e/]|[^/.][. ]+(?:\/|$)/;

/**
 * A cheap first test for a whole path, absolute or relative, in one pass over it: false only when
 * {@link protectedEntryReason} finds nothing. A segment starting with a dot, a segment named like
 * an undotted protected name, or one a file system may fold sends the path to the full check; else
 * only its last segment's patterns and the whole-path patterns are tried.
 */
export function mayBeProtectedPath(path: string): boolean {
  if (path.charCodeAt(0) === 46 || path.includes('/.')) return true;
  if (foldableSegment.test(path) || undottedName.test(path)) return true;
  if (anyGatePattern.test(path.slice(path.lastIndexOf('/') + 1))) return true;
  return protectedPathPatterns.some(({ pattern }) => pattern.test(path));
}

/** Why writing this path could make a later program run code, or undefined when it could not. */
export function protectedEntryReason(path: string): string | undefined {
  const segments = path.split('/').filter((segment) => segment !== '');
  const lowered = segments.map(foldName);
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
  const lowerName = lowered.at(-1) ?? '';
  if (fileNames.has(lowerName) || protectedFilePatterns.some((pattern) => pattern.test(lowerName)))
    return `${name} can run code or change configuration`;
  const matched = protectedPathPatterns.find(({ pattern }) => pattern.test(path));
  if (matched) return matched.reason;
  return familyReason(segments, lowered);
}
