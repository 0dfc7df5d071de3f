import { describe, expect, it } from 'vitest';
import { matchesHookMatcher } from './matcher.ts';

describe('matchesHookMatcher', () => {
  it.each([
    [undefined, 'Bash', true],
    ['', 'Bash', true],
    ['*', 'Bash', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashOutput', false],
    ['Edit|Write', 'Write', true],
    ['Edit, Write', 'Write', true],
    ['Edit|Write', 'NotebookEdit', false],
    ['Edit.*', 'NotebookEdit', true],
    ['^Edit$', 'NotebookEdit', false],
    ['mcp__memory__.*', 'mcp__memory__create', true],
    ['mcp__memory__.*', 'mcp__github__create', false],
    ['([', 'Bash', false],
    ['Bash', undefined, true],
  ])('matcher %j against %j → %j', (matcher, value, expected) => {
    expect(matchesHookMatcher(matcher, value)).toBe(expected);
  });
});
