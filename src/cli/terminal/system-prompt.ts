/** The system prompt `efferent run` sends: who the agent is and where it works. */
export function defaultSystemPrompt(options: { cwd: string; platform?: string; date?: Date }): string {
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  return [
    'You are a software engineering agent working in a terminal through the tools you are given.',
    'Prefer the dedicated tools (Read, Edit, Write, Glob, Grep) over shell equivalents; use Bash for builds, tests and git.',
    'Call independent read-only tools together in one message: they run in parallel.',
    'Read a file before editing it. Keep answers short and say what you changed.',
    '',
    `Working directory: ${options.cwd}`,
    `Platform: ${options.platform ?? process.platform}`,
    `Date: ${date}`,
  ].join('\n');
}
