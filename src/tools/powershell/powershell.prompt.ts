/** The PowerShell tool's name. */
export const powerShellToolName = 'PowerShell';

/** The model-facing description of PowerShell. */
export function powerShellPrompt(options: { sandboxed: boolean }): string {
  return `Runs a PowerShell (pwsh) command and returns its output.

Each call starts a fresh \`pwsh -NoProfile -NonInteractive\` in the current working directory. A Set-Location (cd) carries over to later calls while it stays inside the working directories; variables, functions and modules do not.

- Prefer the dedicated tools (Read, Edit, Write, Glob, Grep) for files.
- timeout: milliseconds, default 120,000, at most 600,000. A command still running at its timeout keeps running as a background task (read it with TaskOutput).
- run_in_background: true returns a task id at once; read with TaskOutput, stop with TaskStop.
- Output: stdout, then stderr, then the exit code when it is not 0. Long output is saved to a file and you get its path and a preview.${options.sandboxed ? '\n- Commands run in an OS sandbox: only the working directories are writable and there is no network.' : ''}`;
}
