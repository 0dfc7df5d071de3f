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
