import { groupDigits } from '../shared/group-digits.ts';

/** The Bash tool's name as the model sees it (and as permission rules spell it). */
export const bashToolName = 'Bash';

/** Default and ceiling of the `timeout` parameter (ms) when the environment does not change them. */
export const bashDefaultTimeoutMs = 120_000;
export const bashMaxTimeoutMs = 600_000;
/** The highest `BASH_MAX_OUTPUT_LENGTH` honoured (Claude Code's bound): more would flood the context. */
export const bashMaxOutputLengthCeiling = 150_000;

/** The Bash limits the session's configuration environment sets. */
export interface BashLimits {
  /** `BASH_DEFAULT_TIMEOUT_MS`: the timeout of a call that gives none. */
  defaultTimeoutMs: number;
  /** `BASH_MAX_TIMEOUT_MS`: the highest timeout a call may ask for (never below the default). */
  maxTimeoutMs: number;
  /** `BASH_MAX_OUTPUT_LENGTH`: characters shown inline before the rest goes to a file, if set. */
  maxOutputLength?: number;
}

function positiveWholeNumber(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (!trimmed || !/^\d+$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Reads `BASH_DEFAULT_TIMEOUT_MS`, `BASH_MAX_TIMEOUT_MS` and `BASH_MAX_OUTPUT_LENGTH` as Claude Code
 * does: a value that is not a whole number above zero is ignored, the ceiling is never below the
 * default, and the output length is bounded by {@link bashMaxOutputLengthCeiling}.
 */
export function bashLimits(env: Readonly<Record<string, string | undefined>>): BashLimits {
  const defaultTimeoutMs = positiveWholeNumber(env['BASH_DEFAULT_TIMEOUT_MS']) ?? bashDefaultTimeoutMs;
  const maxTimeoutMs = Math.max(
    positiveWholeNumber(env['BASH_MAX_TIMEOUT_MS']) ?? bashMaxTimeoutMs,
    defaultTimeoutMs,
  );
  const outputLength = positiveWholeNumber(env['BASH_MAX_OUTPUT_LENGTH']);
  return {
    defaultTimeoutMs,
    maxTimeoutMs,
    ...(outputLength ? { maxOutputLength: Math.min(outputLength, bashMaxOutputLengthCeiling) } : {}),
  };
}

/** The model-facing description of Bash. */
export function bashPrompt(options: {
  sandbox: 'on' | 'off' | 'unavailable';
  allowNetwork: boolean;
}): string {
  const sandbox =
    options.sandbox === 'on'
      ? `
Sandbox: commands run in an OS sandbox. Only the working directories, the session directory and a private /tmp are writable; .git/hooks, .git/config, .claude and .efferent stay read-only, as do existing hook-manager and editor settings (.husky, .pre-commit-config.yaml, lefthook.yml, .vscode, .mcp.json, …). A working directory without a git repository cannot be made one (git init there fails; ask the user), and a repository a command creates in a subfolder is kept only with the configuration git itself writes: hooks or program-naming config make efferent move it to .efferent/quarantine. Protected files a command creates or changes anywhere (CLAUDE.md, AGENTS.md, .envrc, .mise.toml, .vscode, .npmrc, hook-manager files, …) are moved to .efferent/quarantine when it ends, unless git wrote them from the repository's existing commits; to create one, ask the user. ${options.allowNetwork ? 'The network is available.' : 'There is no direct network access and Unix sockets cannot be opened; only domains the user listed in sandbox.network.allowedDomains are reachable, through the proxies HTTP_PROXY, HTTPS_PROXY and ALL_PROXY point to (npm, pip, git and curl use them). A blocked connection prints a line saying so: ask the user instead of retrying.'} If a command fails because of the sandbox (a read-only file system error, no network) and it really needs more, run it again with dangerouslyDisableSandbox: true; the user will be asked to approve.`
      : '';
  return `Runs a bash command and returns its output.

Each call starts a fresh \`bash -c\` in the current working directory. A \`cd\` carries over to later calls as long as it stays inside the working directories; otherwise the next call starts in the project root again. Environment variables, shell options and functions do not carry over.

Before you use it:
- Prefer the dedicated tools: Read instead of cat/head/tail, Edit or Write instead of sed/awk/echo redirection, Glob instead of find or ls for file names, Grep instead of grep or rg. They are faster, safer and their output is easier to use.
- Quote paths that contain spaces: cd "path with spaces".
- Chain dependent steps with && (or ; when a failure should not stop the rest). Independent commands can go in separate calls that run in parallel.
- Keep the working directory stable: prefer absolute paths over cd.

Parameters:
- command: the command line.
- timeout: milliseconds, default ${groupDigits(bashDefaultTimeoutMs)}, at most ${groupDigits(bashMaxTimeoutMs)} (larger values are lowered). A command still running at its timeout keeps running as a background task instead of being killed (you get its task id); commands that begin with sleep, commands that mention git, and lines the analyser cannot read are stopped instead.
- description: a short active-voice summary of what the command does (5–10 words), e.g. "List files in src", "Run the unit tests".
- run_in_background: true starts the command and returns a task id at once; read its output with TaskOutput and stop it with TaskStop. Use it for servers, watchers and long builds. Do not add & at the end yourself: processes left behind by a finished command are stopped.

Output: stdout, then stderr, then the exit code when it is not 0. Exit code 1 from grep, rg, diff, find, test/[, git diff and git grep is an answer (no match, files differ), not a failure. Output longer than 30,000 characters is saved to a file and you get its path and a preview. A command whose stdout is an image (PNG, JPEG, GIF, WebP) returns the image.
${sandbox}
Git: never change git config, never skip hooks (--no-verify) or force-push unless the user asks, and never use interactive flags (-i) since there is no terminal.`;
}
