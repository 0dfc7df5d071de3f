/** What the model reads about TodoWrite. */
export const todoWritePrompt = `Keep a structured task list for the current session. It helps you track multi-step work and shows the user your progress.

When to use it:
- the task has three or more distinct steps, or the user gave several tasks at once;
- the user asks for a todo list;
- new requirements arrive mid-task: add them;
- you start a task: mark it in_progress before beginning; you finish one: mark it completed at once.

When not to use it: a single, trivial task, or a purely conversational request.

Rules:
- Send the whole list every time; it replaces the previous one.
- Each item has "content" (imperative: "Run the tests") and "activeForm" (continuous: "Running the tests").
- Exactly one item should be in_progress while you work; never more than one.
- Mark an item completed only when it is fully done: tests pass, nothing left unresolved. If you are blocked, keep it in_progress and add an item for the blocker.`;
