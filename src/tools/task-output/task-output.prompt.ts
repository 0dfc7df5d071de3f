import { groupDigits } from '../shared/group-digits.ts';

/** The TaskOutput tool's name. */
export const taskOutputToolName = 'TaskOutput';

/** Default and ceiling of the `timeout` parameter (ms). */
export const taskOutputDefaultTimeoutMs = 30_000;
export const taskOutputMaxTimeoutMs = 600_000;

/** The model-facing description of TaskOutput. */
export const taskOutputPrompt = `Reads the output of a background task (a Bash command started with run_in_background, or one moved to the background when it ran past its timeout).

- task_id: the id the Bash result gave you.
- block (default true): wait until the task finishes, up to timeout, before answering. Use block: false to look at a task that is still running without waiting.
- timeout: how long to wait in milliseconds (default ${groupDigits(taskOutputDefaultTimeoutMs)}, at most ${groupDigits(taskOutputMaxTimeoutMs)}).

Each call returns the task's status (running, completed, failed or killed), its exit code when it has one, and only the output written since your previous TaskOutput call for that task, so repeated calls do not repeat old output.`;
