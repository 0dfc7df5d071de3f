import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, createToolUseContext } from '../../core/index.ts';
import { startClassifier } from './start-classifier.ts';

const shell = buildTool({
  name: 'Shell',
  inputSchema: z.object({ command: z.string() }),
  prompt: 'Runs.',
  toAutoClassifierInput: (input) => input.command,
  call: async () => ({ data: '' }),
});
const quiet = buildTool({
  name: 'Quiet',
  inputSchema: z.object({}),
  prompt: 'q',
  call: async () => ({ data: '' }),
});
const context = createToolUseContext({ cwd: '/tmp' });

describe('startClassifier (step 5)', () => {
  it('starts for tools with classifier input and skips the rest', () => {
    const started: string[] = [];
    const start = (tool: { name: string }) => started.push(tool.name);
    expect(startClassifier(start, shell, { command: 'ls' }, context)).toBe(true);
    expect(startClassifier(start, quiet, {}, context)).toBe(false);
    expect(startClassifier(undefined, shell, { command: 'ls' }, context)).toBe(false);
    expect(started).toEqual(['Shell']);
  });

  it('never lets a failing classifier affect the call', () => {
    const start = () => {
      throw new Error('classifier offline');
    };
    expect(startClassifier(start, shell, { command: 'ls' }, context)).toBe(false);
  });
});
