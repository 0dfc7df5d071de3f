import { groupDigits } from '../shared/group-digits.ts';

/** The REPL tool's name. */
export const replToolName = 'REPL';

/** Default and ceiling of the `timeout` parameter (ms). */
export const replDefaultTimeoutMs = 30_000;
export const replMaxTimeoutMs = 600_000;

/** The model-facing description of REPL. */
export const replPrompt = `Evaluates JavaScript in a persistent Node.js context and returns what it printed and the value of its last expression.

- State carries over: variables, functions and classes declared in one call are there in the next.
- Top-level await works: const data = await fetch(url).then((r) => r.json()).
- require() is available (node: modules and packages installed in the working directory), as are process and Buffer.
- console.log/info/warn/error output is captured and returned (up to 30,000 characters per call).
- timeout: milliseconds, default ${groupDigits(replDefaultTimeoutMs)}, at most ${groupDigits(replMaxTimeoutMs)}. A call that runs too long is interrupted; if it cannot be interrupted the context is restarted and earlier variables are lost (the result says so).

Use it for calculations, data wrangling and quick experiments with libraries. Use Bash for shell commands and Read, Edit and Write for files.`;
