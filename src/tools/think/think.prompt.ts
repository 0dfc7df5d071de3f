/** What the model reads about Think. */
export const thinkPrompt = `Use this tool to think through a problem step by step before acting. It changes nothing: no files are read or written and nothing runs. The thought is recorded in the conversation so you can refer back to it.

Good moments to use it:
- after several tool results, to check what you have learned against what the user asked;
- before a risky or irreversible action, to confirm it is the right one;
- when a plan has several steps and you want to lay them out first.`;
