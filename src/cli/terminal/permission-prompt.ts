import type { Writable } from 'node:stream';
import type { AskUser, PermissionPrompt, PermissionPromptAnswer } from '../../core/index.ts';
import type { LineInput } from './line-input.ts';
import { style } from './style.ts';

const choices: Array<{ keys: string[]; label: string; answer: PermissionPromptAnswer }> = [
  { keys: ['1', 'y', 'yes'], label: 'Allow once', answer: { choice: 'allow-once' } },
  { keys: ['2', 's', 'session'], label: 'Allow for this session', answer: { choice: 'allow-session' } },
  {
    keys: ['3', 'a', 'always'],
    label: 'Always allow (saved to project settings)',
    answer: { choice: 'allow-always' },
  },
  { keys: ['4', 'n', 'no'], label: 'Deny', answer: { choice: 'deny' } },
];

/** Renders a permission question: the call, why efferent asks, the preview and the rules "always" would save. */
export function renderPermissionPrompt(prompt: PermissionPrompt): string {
  const lines = [
    '',
    style.bold(`Permission needed: ${prompt.toolName}`),
    `  ${JSON.stringify(prompt.input).slice(0, 300)}`,
    `  ${style.dim(`Why: ${prompt.message}`)}`,
  ];
  if (prompt.preview) lines.push(...prompt.preview.split('\n').map((line) => `  │ ${line}`));
  if (prompt.suggestions.length > 0) {
    const rules = prompt.suggestions.map((rule) =>
      rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName,
    );
    lines.push(`  ${style.dim(`"Always" would add: ${rules.join(', ')}`)}`);
  }
  lines.push(...choices.map((choice, index) => `  ${index + 1}) ${choice.label}`));
  return `${lines.join('\n')}\n`;
}

/** Parses an answer; undefined when it is none of the choices. */
export function parsePermissionAnswer(line: string): PermissionPromptAnswer | undefined {
  const text = line.trim().toLowerCase();
  return choices.find((choice) => choice.keys.includes(text))?.answer;
}

/** The terminal's AskUser: asks on the output, reads the answer from the line queue; end of input denies. */
export function createTerminalAskUser(input: LineInput, output: Writable): AskUser {
  return async (prompt, signal) => {
    output.write(renderPermissionPrompt(prompt));
    for (;;) {
      const line = await input.question('Choose 1-4: ', output, signal);
      if (line === null) return { choice: 'deny', feedback: 'No answer was given.' };
      const answer = parsePermissionAnswer(line);
      if (answer) return answer;
      output.write('Please answer 1, 2, 3 or 4.\n');
    }
  };
}
