/**
 * Embedding efferent in your own agent: a custom tool next to the built-ins, one session, and calls
 * through the whole pipeline. Run it with `npx tsx examples/embed.ts [directory]`.
 */
import { z } from 'zod';
import { buildTool, createSession, toolResultText } from '../src/index.ts';

const WordCount = buildTool({
  name: 'WordCount',
  inputSchema: z.strictObject({ text: z.string().describe('The text to count words in.') }),
  prompt: 'Counts the words in a text.',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async call({ text }) {
    return { data: `${text.split(/\s+/).filter(Boolean).length} words` };
  },
});

const cwd = process.argv[2] ?? process.cwd();
// No askUser: anything that needs approval is refused with an explanation the model can act on.
await using session = await createSession({ cwd, extraTools: [WordCount] });

for (const [name, input] of [
  ['WordCount', { text: 'efferent carries intent into action' }],
  ['Glob', { pattern: '*' }],
  ['Bash', { command: 'rm -rf build' }],
] as const) {
  const result = await session.callTool(name, input);
  console.log(`${name}${result.isError ? ' (refused)' : ''}: ${toolResultText(result).split('\n')[0]}`);
}
