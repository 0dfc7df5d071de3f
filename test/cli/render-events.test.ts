import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.ts';
import { createEventRenderer } from '../../src/cli/terminal/render-events.ts';

function screen() {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { output, text: () => text };
}

const useEnd = (id: string, name: string, input: Record<string, unknown>): AgentEvent => ({
  type: 'stream',
  event: { type: 'tool_use_end', id, name, input },
  at: 0,
});

describe('the terminal renderer', () => {
  it('shows "started" only once a call is allowed or reports progress, with elapsed time and the output tail', async () => {
    const out = screen();
    const render = createEventRenderer(out.output, { deferStarted: true });
    render(useEnd('w1', 'Write', { file_path: '/tmp/a.txt', content: 'x' }));
    render({ type: 'tool_started', toolUseId: 'w1', name: 'Write', at: 1000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).not.toContain('started');
    render.permissionGranted('w1');
    render(useEnd('b1', 'Bash', { command: 'npm test' }));
    render({ type: 'tool_started', toolUseId: 'b1', name: 'Bash', at: 1000 });
    render({
      type: 'tool_progress',
      toolUseId: 'b1',
      data: {
        type: 'shell_progress',
        output: 'line 1\nline 2\nline 3\nline 4\n',
        elapsedMs: 2500,
        totalBytes: 28,
      },
      at: 3500,
    });
    render({
      type: 'tool_result',
      toolUseId: 'b1',
      name: 'Bash',
      result: { type: 'tool_result', toolUseId: 'b1', content: 'ok 1\nok 2\nok 3\nok 4\nok 5' },
      newMessages: [],
      ran: true,
      at: 4000,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const text = out.text();
    expect(text).toContain('▶ Write(/tmp/a.txt) started');
    expect(text).toContain('▶ Bash(npm test) started');
    expect(text).toContain('… 2.5s');
    expect(text).toContain('│ line 4');
    expect(text).not.toContain('│ line 1');
    // The result's first lines, not a line count.
    expect(text).toContain('✓ Bash result · npm test (3.0s):\n  ok 1\n  ok 2\n  ok 3\n');
    expect(text).toContain('… 2 more lines');
  });
});
