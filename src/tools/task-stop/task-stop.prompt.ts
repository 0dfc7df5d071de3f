/** The TaskStop tool's name. */
export const taskStopToolName = 'TaskStop';

/** The model-facing description of TaskStop. */
export const taskStopPrompt = `Stops a running background task (a Bash command started with run_in_background or moved to the background at its timeout), together with every process it started.

- task_id: the id of the task to stop. (shell_id is the old name of the same parameter and still works.)

The task gets SIGTERM, then SIGKILL if it is still running after a short grace period. Use TaskOutput first if you still need its output.`;
