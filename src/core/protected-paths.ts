/**
 * Start-up files that shells and common tools read and that can make them run code in a later
 * session. One list, so the permission engine (which asks before writing them) and the Bash sandbox
 * (which keeps them read-only) always protect the same files.
 */
export const startupFileNames: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.inputrc',
  '.envrc',
  '.gitconfig',
  '.npmrc',
];

/**
 * The workspace entries whose modification can run code later, shared by the permission engine
 * (which asks before writing them anywhere in a path) and the Bash sandbox (which keeps them
 * read-only at the root of every writable directory, present or not).
 */
/** Directory names that are protected wherever they appear in a path. */
export const protectedDirectoryNames: readonly string[] = [
  '.git',
  '.vscode',
  '.idea',
  '.husky',
  '.cargo',
  '.devcontainer',
  '.yarn',
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
  '.ssh',
  '.gnupg',
  '.aws',
];

/** File names that are protected wherever they appear. */
export const protectedFileNames: readonly string[] = [
  ...startupFileNames,
  '.gitmodules',
  '.gitattributes',
  '.pnp.cjs',
  '.pnp.js',
  '.pnp.loader.mjs',
  'bunfig.toml',
  '.bazelrc',
  '.bazelversion',
  '.bazeliskrc',
  '.pre-commit-config.yaml',
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
];

/** File-name patterns that are protected wherever they appear. */
export const protectedFilePatterns: readonly RegExp[] = [
  /^\.yarnrc/,
  /^lefthook/,
  /-wrapper\.properties$/,
  /^\.bazel/,
];
