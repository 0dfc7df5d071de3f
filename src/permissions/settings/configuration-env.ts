/**
 * efferent's own configuration variables (`ANTHROPIC_BASE_URL`, `BASH_DEFAULT_TIMEOUT_MS`,
 * `MCP_TIMEOUT`, …) come from one environment: the process's, overlaid by the settings files' `env`.
 * Claude Code writes each settings `env` entry into its own environment at start, so a value in a
 * settings file wins over the same variable exported in the shell; efferent does the same.
 */

/** An environment as efferent reads it: names to values, unset names absent or undefined. */
export type ConfigurationEnv = Readonly<Record<string, string | undefined>>;

/**
 * The environment every reader of a configuration variable uses: `base` (normally `process.env`)
 * overlaid by the merged settings `env` (higher settings levels already won inside it).
 */
export function configurationEnvironment(
  base: ConfigurationEnv,
  settingsEnv: Readonly<Record<string, string>>,
): Record<string, string | undefined> {
  return { ...base, ...settingsEnv };
}

/**
 * A variable holding a whole number above zero, or undefined when it is unset, empty or not such a
 * number (Claude Code falls back to the default then, and so does efferent).
 */
export function positiveIntegerVariable(env: ConfigurationEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}
