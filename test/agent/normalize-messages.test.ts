import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/index.ts';
import { normalizeMessagesForApi } from '../../src/agent/index.ts';

describe('normalizeMessagesForApi, turn alternation', () => {
  it('merges the user turns an empty (interrupted) assistant message leaves adjacent', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: '' }], stopReason: 'aborted' },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
    ];
    const normalized = normalizeMessagesForApi(messages);
    expect(normalized).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ]);
    // The input is left as it was.
    expect(messages[0]?.content).toHaveLength(1);
  });

  it('keeps tool results first when a later user turn merges into them', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: 'ok' }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ];
    const normalized = normalizeMessagesForApi(messages);
    expect(normalized.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(normalized[2]?.content).toEqual([
      { type: 'tool_result', toolUseId: 't1', content: 'ok' },
      { type: 'text', text: 'next' },
    ]);
  });
});
