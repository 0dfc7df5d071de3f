import type { Writable } from 'node:stream';
import type { AskUser, PermissionPrompt, PermissionPromptAnswer } from '../../core/index.ts';
import type { LineInput } from './line-input.ts';
import { callLabel, colourDiff } from './render-events.ts';
import { style } from './style.ts';
import { terminalText } from './terminal-text.ts';

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

/** The most of a call's input a prompt shows; past it the prompt says how much is hidden. */
const maxShownInput = 2000;

/**
 * A call's input as a prompt shows it: every character that could act on the terminal escaped, runs
 * of blanks counted (padding must not push the end of a command out of sight), and anything past
 * {@link maxShownInput} announced rather than silently cut.
 */
function shownInput(input: Record<string, unknown>): string {
  const text = terminalText(JSON.stringify(input)).replace(/ {4,}/g, (run) => ` ⟨${run.length} spaces⟩ `);
  return text.length > maxShownInput
    ? `${text.slice(0, maxShownInput)}… ${style.yellow(`(${text.length - maxShownInput} more characters not shown; deny if unsure)`)}`
    : text;
}

/** Renders a permission question: the call, why efferent asks, the preview and the rules "always" would save. */
export function renderPermissionPrompt(prompt: PermissionPrompt, waiting = 0): string {
  const label = callLabel(prompt.toolName, prompt.input);
  const lines = [
    '',
    style.bold(`Permission needed: ${label}`) +
      (waiting > 0 ? style.dim(` (${waiting} more waiting after this one)`) : ''),
    `  ${shownInput(prompt.input)}`,
    `  ${style.dim(`Why: ${terminalText(prompt.message)}`)}`,
  ];
  if (prompt.preview) lines.push(...colourDiff(terminalText(prompt.preview)).map((line) => `  │ ${line}`));
  if (prompt.suggestions.length > 0) {
    const rules = prompt.suggestions.map((rule) =>
      terminalText(rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName),
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

const interruptedAnswer: PermissionPromptAnswer = {
  choice: 'deny',
  feedback: 'The user interrupted; nothing was approved.',
};

/**
 * The terminal's permission prompts. Questions are shown one at a time, in the order they were asked,
 * each naming its call; only input typed after a question is shown can answer it (what was typed
 * before is dropped, and the user is told). `denyAll` (Ctrl+C, Esc) answers every shown and waiting
 * question with "deny".
 */
export class TerminalPermissionPrompts {
  readonly #input: LineInput;
  readonly #output: Writable;
  readonly #pending = new Set<AbortController>();
  #turn: Promise<void> = Promise.resolve();
  /** Told about every answer (the renderer shows a call as started once it is allowed). */
  onAnswer: ((prompt: PermissionPrompt, answer: PermissionPromptAnswer) => void) | undefined;

  constructor(input: LineInput, output: Writable) {
    this.#input = input;
    this.#output = output;
  }

  /** How many questions are shown or waiting. */
  get pending(): number {
    return this.#pending.size;
  }

  /** The AskUser to give the session. */
  readonly askUser: AskUser = async (prompt, signal) => {
    const denied = new AbortController();
    const onAbort = () => denied.abort();
    if (signal.aborted) return interruptedAnswer;
    signal.addEventListener('abort', onAbort, { once: true });
    this.#pending.add(denied);
    // One question at a time: each waits for the one before it to be answered.
    const before = this.#turn;
    let release = () => {};
    this.#turn = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await before;
      if (denied.signal.aborted) return interruptedAnswer;
      const answer = await this.#ask(prompt, denied.signal);
      this.onAnswer?.(prompt, answer);
      return answer;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#pending.delete(denied);
      release();
    }
  };

  /** Denies every question shown or waiting; returns how many there were. */
  denyAll(): number {
    const count = this.#pending.size;
    for (const controller of this.#pending) controller.abort();
    return count;
  }

  async #ask(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionPromptAnswer> {
    const output = this.#output;
    const label = callLabel(prompt.toolName, prompt.input);
    output.write(renderPermissionPrompt(prompt, this.#pending.size - 1));
    for (;;) {
      const line = await this.#input.question(`Allow ${label}? Choose 1-4: `, output, {
        signal,
        fresh: true,
        onDiscarded: (text) =>
          output.write(
            style.yellow(
              `\n(ignored ${JSON.stringify(text.slice(0, 40))}: it was typed before this question was shown)\n`,
            ),
          ),
      });
      if (line === null) {
        if (signal.aborted) {
          output.write(style.yellow(`\nDenied ${label}: interrupted.\n`));
          return interruptedAnswer;
        }
        return { choice: 'deny', feedback: 'No answer was given.' };
      }
      const answer = parsePermissionAnswer(line);
      if (answer) return answer;
      output.write('Please answer 1, 2, 3 or 4.\n');
    }
  }
}

/** The terminal's AskUser (see {@link TerminalPermissionPrompts}). */
export function createTerminalAskUser(input: LineInput, output: Writable): AskUser {
  return new TerminalPermissionPrompts(input, output).askUser;
}
