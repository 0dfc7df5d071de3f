/** What the model reads about Sleep. */
export const sleepPrompt = `Wait for a given time, then continue. Use it when something you started needs time before you check on it again: a background command, a server coming up, a file another process is writing.

- duration_ms: how long to wait, from 1 to 600000 (10 minutes).
- The wait ends early if the user interrupts; the result then says how long was actually waited.
- Prefer reading a background task's output with blocking over sleeping and polling.`;
