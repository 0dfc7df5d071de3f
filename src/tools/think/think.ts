import { z } from 'zod';
import { buildTool, lazySchema } from '../../core/index.ts';
import { thinkPrompt } from './think.prompt.ts';

const inputSchema = lazySchema(() =>
  z.strictObject({
    thought: z.string().min(1).describe('Your reasoning, in as much detail as helps.'),
  }),
);

/** Records a thought; no side effects. */
export const ThinkTool = buildTool({
  name: 'Think',
  searchHint: 'reason step by step without acting',
  get inputSchema() {
    return inputSchema();
  },
  prompt: thinkPrompt,
  description: () => 'Think',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async call(input) {
    return { data: { thought: input.thought } };
  },
  mapResultToBlock: (_output, toolUseId) => ({
    type: 'tool_result',
    toolUseId,
    content: 'Thought recorded. Continue with the next step.',
  }),
  renderToolUse: (input) => (input.thought ? input.thought.slice(0, 80) : ''),
});
