import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  directShellTreeAccess,
  loadShellParser,
  parseBash,
  parseBashSyntax,
  parseBashSyntaxWithClasses,
  type SyntaxOutcome,
  shellParseCount,
} from './parser.ts';
import { dumpSyntaxNode } from '../../test/shell/syntax-dump.ts';

/** Every Bash command of the permission corpus and the security sample. */
function corpusCommands(): string[] {
  const commands = (
    JSON.parse(
      readFileSync(new URL('./fixtures/security-sample-bash.json', import.meta.url), 'utf8'),
    ) as Array<{ command: string }>
  ).map((entry) => entry.command);
  const folder = new URL('../../test/corpus/', import.meta.url);
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.json'))) {
    const cases = JSON.parse(readFileSync(new URL(name, folder), 'utf8')) as Array<{
      tool?: string;
      input?: { command?: unknown };
    }>;
    for (const call of cases)
      if (call.tool === 'Bash' && typeof call.input?.command === 'string') commands.push(call.input.command);
  }
  return commands;
}

function dumpOutcome(outcome: SyntaxOutcome): unknown {
  return outcome.kind === 'root' ? { kind: 'root', root: dumpSyntaxNode(outcome.root) } : outcome;
}

/** Asserts the direct path and web-tree-sitter's classes give the same outcome and tree for `command`. */
function expectSameCopy(command: string, maxNodes = 50_000): void {
  const direct = parseBashSyntax(command, maxNodes);
  const classes = parseBashSyntaxWithClasses(command, maxNodes);
  expect(dumpOutcome(direct), JSON.stringify(command.slice(0, 200))).toEqual(dumpOutcome(classes));
}

const words = [
  'ls',
  'git',
  'status',
  '-la',
  'é',
  'über',
  '日本語',
  '😀',
  'a😀b',
  '"x y"',
  "'q é'",
  '"$HOME/ü"',
  '$x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template.
  '${y}',
  '$(echo é)',
  '`date`',
  '<(ls)',
  '*.ts',
  '{a,b}',
  '\\n',
  '#c',
  '$((1+2))',
  '"',
  "'",
  '(',
  ')',
  '{',
  '}',
  'then',
  'fi',
];
const joins = [' ', ' | ', ' && ', ' || ', '; ', '\n', ' > out.txt ', ' 2>&1 ', ' <<< ', ' & '];

/** Lines made of shell fragments: mostly valid, some syntax errors, non-ASCII throughout. */
const lines = fc
  .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...joins)), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.map(([word, join]) => word + join).join(''));

/** A heredoc with a non-ASCII body, quoted or not, with the rest of the line after its start. */
const heredocs = fc
  .tuple(fc.boolean(), fc.constantFrom('EOF', 'END'), lines, fc.constantFrom('', ' | grep é', ' && echo 😀'))
  .map(
    ([quoted, tag, body, rest]) => `cat <<${quoted ? `'${tag}'` : tag}${rest}\n${body}\n${tag}\necho done`,
  );

describe('the direct tree copy (wasm-tree.ts)', () => {
  beforeAll(() => loadShellParser());

  it('is the path the analysis takes', () => {
    expect(directShellTreeAccess()).toBeDefined();
  });

  it('gives the same tree as the tree-cursor copy over the whole corpus', () => {
    const commands = corpusCommands();
    expect(commands.length).toBeGreaterThan(600);
    for (const command of commands) expectSameCopy(command);
  });

  it('gives the same tree for generated lines, heredocs, syntax errors and non-ASCII text', () => {
    fc.assert(
      fc.property(fc.oneof(lines, heredocs), (command) => expectSameCopy(command)),
      { seed: 1066, numRuns: 1500 },
    );
  });

  it('gives the same tree for deep nesting, long input and the edges of the budget', () => {
    const depth = 400;
    const nested = [
      `${'$(echo '.repeat(depth)}x${')'.repeat(depth)}`,
      `${'('.repeat(depth)}ls${')'.repeat(depth)}`,
      `${'{ '.repeat(depth)}ls${'; }'.repeat(depth)}`,
      `${'"$('.repeat(60)}é${')"'.repeat(60)}`,
    ];
    for (const command of nested) expectSameCopy(command);
    // Longer than web-tree-sitter's 10 KB input buffer, so the text arrives in several pieces,
    // one of them split inside a surrogate pair.
    const long = `echo ${'😀'.repeat(3000)} && ${'ls -la; '.repeat(2000)}echo ü`;
    expectSameCopy(long);
    expect(parseBashSyntax(long, 50_000).kind).toBe('root');
    for (const command of ['', ' ', '\n', '#', 'if then', "echo 'open", 'ls )', '}{'])
      expectSameCopy(command);
    // The node budget: exactly at the limit passes, one below refuses, on both paths.
    const outcome = parseBash('ls -la | wc -l');
    if (outcome.kind !== 'tree') throw new Error('no tree');
    const count = outcome.tree.rootNode.descendantCount;
    outcome.tree.delete();
    expect(parseBashSyntax('ls -la | wc -l', count).kind).toBe('root');
    expect(parseBashSyntax('ls -la | wc -l', count - 1).kind).toBe('too-large');
    expectSameCopy('ls -la | wc -l', count - 1);
    expect(parseBashSyntax('echo "unterminated', 50_000).kind).toBe('syntax-error');
  });

  it('indexes text in UTF-16 code units, as JavaScript strings do', () => {
    const command = 'echo \'é\' 日本 😀x "ü$HOME" > 😀.txt';
    const outcome = parseBashSyntax(command, 50_000);
    if (outcome.kind !== 'root') throw new Error(`no tree: ${outcome.kind}`);
    const root = outcome.root;
    // In UTF-8 the line is 13 bytes longer than it is in UTF-16 code units.
    expect(Buffer.byteLength(command)).toBeGreaterThan(command.length);
    expect(root.endIndex).toBe(command.length);
    const [echo] = root.children;
    const redirected = echo?.type === 'redirected_statement' ? echo : undefined;
    const statement = redirected?.children[0];
    expect(statement?.children.map((child) => child.text)).toEqual([
      'echo',
      "'é'",
      '日本',
      '😀x',
      '"ü$HOME"',
    ]);
    expect(redirected?.children[1]?.text).toBe('> 😀.txt');
    for (const child of statement?.children ?? []) expect(child.startIndex).toBe(command.indexOf(child.text));
  });

  it('counts one parse per line, as the classes path does', () => {
    const before = shellParseCount();
    parseBashSyntax('ls | wc -l', 50_000);
    expect(shellParseCount()).toBe(before + 1);
    parseBashSyntax('echo "unterminated', 50_000);
    expect(shellParseCount()).toBe(before + 2);
  });
});
