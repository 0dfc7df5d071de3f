/**
 * Configuration every git a Bash command starts receives through the environment
 * (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`), which outranks every configuration
 * file, the repository's included. It switches off what a repository could use to run a program
 * without a diff driver or alias being involved, and changes nothing a person relies on:
 *
 * - `core.fsmonitor=false`: no fsmonitor hook or daemon (only a speed-up);
 * - `safe.bareRepository=explicit`: a bare repository is used only when named (`--git-dir`), so a
 *   directory of a project that happens to be a bare repository is never picked up by discovery;
 * - `protocol.ext.allow=never`: no `ext::` transport, which is a shell command;
 * - for lines the analyser classifies read-only, also `core.hooksPath=/dev/null`: commands that
 *   only read need no hooks (an index refresh would otherwise run `post-index-change`). Lines that
 *   may write keep the user's hooks (`git commit` runs pre-commit as the user expects).
 *
 * Entries the user's environment already has are kept; these are appended after them. Read-only
 * lines also lose `LESSOPEN`/`LESSCLOSE` (an input preprocessor such as lesspipe runs programs on the
 * files `less` opens) and get `GIT_PAGER=cat`: output goes to files, so no pager is wanted.
 */

/** The settings for a command line; `readOnly` adds `core.hooksPath=/dev/null`. */
export function gitSafetySettings(readOnly: boolean): Array<[string, string]> {
  const settings: Array<[string, string]> = [
    ['core.fsmonitor', 'false'],
    ['safe.bareRepository', 'explicit'],
    ['protocol.ext.allow', 'never'],
  ];
  if (readOnly) settings.push(['core.hooksPath', '/dev/null']);
  return settings;
}

/** `env` with the git safety settings appended to any `GIT_CONFIG_COUNT` entries already there. */
export function withGitSafety(env: Record<string, string>, readOnly: boolean): Record<string, string> {
  const result = { ...env };
  const existing = result.GIT_CONFIG_COUNT;
  const start = existing !== undefined && /^\d{1,4}$/.test(existing.trim()) ? Number(existing.trim()) : 0;
  const settings = gitSafetySettings(readOnly);
  settings.forEach(([key, value], offset) => {
    result[`GIT_CONFIG_KEY_${start + offset}`] = key;
    result[`GIT_CONFIG_VALUE_${start + offset}`] = value;
  });
  result.GIT_CONFIG_COUNT = String(start + settings.length);
  if (readOnly) {
    delete result.LESSOPEN;
    delete result.LESSCLOSE;
    result.GIT_PAGER = 'cat';
  }
  return result;
}
