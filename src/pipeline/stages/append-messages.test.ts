import { describe, expect, it } from 'vitest';
import { userMessage } from '../../core/index.ts';
import { appendMessages } from './append-messages.ts';

describe('appendMessages (step 13)', () => {
  const result = { type: 'tool_result' as const, toolUseId: 't', content: 'output' };

  it('leaves a result alone when there is nothing to add, and passes tool messages through', () => {
    const transcript = [userMessage('subagent said hi', true)];
    expect(appendMessages({ result, newMessages: transcript })).toEqual({ result, newMessages: transcript });
  });

  it('puts hook feedback and context next to the result as system reminders', () => {
    const appended = appendMessages({
      result,
      additionalContext: ['tests are slow today'],
      feedback: ['found a TODO'],
    });
    expect(appended.result.content).toEqual([
      { type: 'text', text: 'output' },
      {
        type: 'text',
        text: '<system-reminder>\nPostToolUse hook feedback: found a TODO\n</system-reminder>',
        systemReminder: true,
      },
      {
        type: 'text',
        text: '<system-reminder>\ntests are slow today\n</system-reminder>',
        systemReminder: true,
      },
    ]);
    expect(appended.newMessages).toEqual([]);
  });
});
