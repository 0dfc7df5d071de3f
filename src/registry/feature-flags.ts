/** Switches for tools that exist only in some environments or builds. */
export interface FeatureFlags {
  /** PowerShell tool: on only where `pwsh` is on PATH unless forced. */
  powershell: boolean;
  /** JavaScript REPL tool. */
  repl: boolean;
  /** TodoWrite (Claude Code keeps it off in favour of the Task* tools; efferent keeps it on). */
  todoWrite: boolean;
}

/** Flags from the environment: `EFFERENT_FEATURE_<NAME>=0|1` overrides each default. */
export function featureFlagsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  defaults: FeatureFlags = { powershell: false, repl: true, todoWrite: true },
): FeatureFlags {
  const read = (name: string, fallback: boolean): boolean => {
    const value = env[`EFFERENT_FEATURE_${name}`];
    if (value === undefined || value === '') return fallback;
    return value === '1' || value.toLowerCase() === 'true';
  };
  return {
    powershell: read('POWERSHELL', defaults.powershell),
    repl: read('REPL', defaults.repl),
    todoWrite: read('TODOWRITE', defaults.todoWrite),
  };
}
