import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../core/index.ts';
import { createHookInput } from './hook-input.ts';

describe('hook input', () => {
  const root = '/srv/proj';

  it('points transcript_path at the session transcript when the run saves one', () => {
    const context = createToolUseContext({ cwd: root, sessionDir: join(root, 'session'), sessionId: 's-1' });
    context.run.transcriptPath = '/home/u/.efferent/projects/proj/s-1.jsonl';
    const input = createHookInput('PreToolUse', context, { tool_name: 'Read' });
    expect(input.transcript_path).toBe('/home/u/.efferent/projects/proj/s-1.jsonl');
  });

  it('falls back to a path in the session folder otherwise', () => {
    const context = createToolUseContext({ cwd: root, sessionDir: join(root, 'session'), sessionId: 's-1' });
    const input = createHookInput('Stop', context, {});
    expect(input.transcript_path).toBe(join(root, 'session', 'transcript.jsonl'));
  });
});
