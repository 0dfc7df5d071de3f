import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, parseBashSyntax, parseBashSyntaxWithClasses, shellParseCount } from './parser.ts';
import { dumpSyntaxNode } from '../../test/shell/syntax-dump.ts';
import { simpleCommandSyntax } from './syntax-node.ts';

/**
 * A line that is one plain command is read without the grammar (`simpleCommandSyntax`). The
 * analysis trusts that tree as it trusts the grammar's, so it must be the grammar's tree node for
 * node; these tests compare the two on generated lines, and check that every other line is left to
 * the grammar.
 */

/** The grammar's tree of `line`, copied. */
function grammarTree(line: string, maxNodes = 50_000): unknown {
  const outcome = parseBashSyntaxWithClasses(line, maxNodes);
  return outcome.kind === 'root' ? dumpSyntaxNode(outcome.root) : outcome.kind;
}

/** Asserts that the fast read of `line`, when it reads it, is the grammar's tree. */
function expectGrammarTree(line: string): boolean {
  const fast = simpleCommandSyntax(line, 50_000);
  if (fast === undefined) return false;
  expect(dumpSyntaxNode(fast), JSON.stringify(line)).toEqual(grammarTree(line));
  return true;
}

const plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:=-';
/** Plain to bash, but some words holding them are errors to the grammar: left to it. */
const grammarOnly = '@%';
const reserved = ['if', 'then', 'elif', 'else', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until'];
const moreReserved = ['do', 'done', 'in', 'function', 'time', 'coproc', '!', '[[', ']]', '{', '}'];

/** Words built from the plain characters, digits-only words, reserved words and near misses. */
const word = fc.oneof(
  { arbitrary: fc.string({ unit: fc.constantFrom(...plain), minLength: 1, maxLength: 6 }), weight: 6 },
  fc.string({ unit: fc.constantFrom(...plain, ...grammarOnly), minLength: 1, maxLength: 6 }),
  fc.string({ unit: fc.constantFrom(...'0123456789-'), minLength: 1, maxLength: 4 }),
  fc.constantFrom(
    ...reserved,
    ...moreReserved,
    'git',
    'status',
    'npm',
    'run',
    '-la',
    '--x=y',
    'a=b',
    '=x',
    'a==b',
    '==',
  ),
);
const gap = fc.constantFrom(' ', '  ', '\t', ' \t ');
const edge = fc.constantFrom('', ' ', '\t', '  ');

/** Lines of plain words with spaces and tabs around and between them. */
const plainLines = fc
  .tuple(edge, fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 8 }), word, edge)
  .map(([before, parts, last, after]) => `${before}${parts.map(([w, g]) => w + g).join('')}${last}${after}`);

describe('simpleCommandSyntax', () => {
  beforeAll(() => loadShellParser());

  it('reads the everyday commands a model runs', () => {
    for (const line of [
      'git status',
      'npm run build --workspace pkg7',
      'ls -la src',
      'npm test',
      'git log --oneline -5',
      'cargo build --release',
      'ls',
    ])
      expect(expectGrammarTree(line), line).toBe(true);
  });

  it('gives the grammar tree for generated plain lines', () => {
    let read = 0;
    fc.assert(
      fc.property(plainLines, (line) => {
        if (expectGrammarTree(line)) read++;
      }),
      { numRuns: 3000 },
    );
    // Most generated lines are plain commands: the comparison must not be vacuous.
    expect(read).toBeGreaterThan(500);
  });

  it('gives the grammar tree for every pair of one- and two-character words', () => {
    const short = [...plain, ...[...plain].flatMap((a) => ['a', '-', '1', '='].map((b) => a + b))];
    for (const first of ['x', 'git', '-x', '.', 'a.b', '-'])
      for (const second of short) expectGrammarTree(`${first} ${second}`);
    for (const only of short) expectGrammarTree(only);
  });

  it('gives the grammar tree for every word of up to three characters from the edge cases', () => {
    // Digits, `-`, `+`, `:`, `=`, `.` and `,` are where the grammar's tokens (numbers, expansion and
    // test operators) start; every word of up to three of them, in every position.
    const alphabet = [...'a0_./+,:=-x'];
    const edgeWords: string[] = [];
    for (const a of alphabet) {
      edgeWords.push(a);
      for (const b of alphabet) {
        edgeWords.push(a + b);
        for (const c of alphabet) edgeWords.push(a + b + c);
      }
    }
    let read = 0;
    for (const each of edgeWords)
      for (const line of [each, `x ${each}`, `${each} x`, `x ${each} y`]) if (expectGrammarTree(line)) read++;
    expect(read).toBeGreaterThan(3000);
  });

  it('gives the grammar tree for every bash builtin and keyword, in any position', () => {
    // `compgen -b; compgen -k` of bash 5, and the grammar's own `unsetenv`.
    const names =
      '. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset unsetenv wait if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc';
    for (const name of names.split(' '))
      for (const line of [name, `${name} x`, `${name} a=b`, `${name} -x y`, `x ${name}`, `x ${name} y`])
        expectGrammarTree(line);
  });

  it('leaves to the grammar every line with a character outside the plain words', () => {
    const others: string[] = [];
    for (let code = 0; code < 0x250; code++) {
      const character = String.fromCharCode(code);
      if (!plain.includes(character) && character !== ' ' && character !== '\t') others.push(character);
    }
    others.push('😀', '\u00a0', '\u2028');
    for (const character of others)
      for (const line of [`ls ${character}`, `ls a${character}b`, `${character}ls`, `ls src${character}`])
        expect(simpleCommandSyntax(line, 50_000), JSON.stringify(line)).toBeUndefined();
  });

  it('leaves assignments, reserved words and leading digits in command position to the grammar', () => {
    for (const line of [
      'a=b',
      'A=1 ls',
      'if x',
      'time ls',
      'coproc x',
      'do',
      '2 x',
      'in a',
      '',
      '-1',
      '- a=b ls',
    ]) {
      expect(simpleCommandSyntax(line, 50_000), line).toBeUndefined();
      expectGrammarTree(line);
    }
  });

  it('leaves a line past the node budget to the grammar, which reports it too large', () => {
    expect(simpleCommandSyntax('ls a b', 5)).toBeUndefined();
    expect(simpleCommandSyntax('ls a b', 6)).toBeDefined();
    expect(parseBashSyntax('ls a b', 5).kind).toBe('too-large');
    expect(simpleCommandSyntax(`ls ${'a'.repeat(5000)}`, 50_000)).toBeUndefined();
  });

  it('is what the analysis reads, counted as the line parse', () => {
    const before = shellParseCount();
    const outcome = parseBashSyntax('npm run build', 50_000);
    expect(shellParseCount()).toBe(before + 1);
    expect(outcome.kind === 'root' && dumpSyntaxNode(outcome.root)).toEqual(grammarTree('npm run build'));
  });
});
