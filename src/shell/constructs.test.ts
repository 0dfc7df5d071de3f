// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${…} is bash syntax
import { beforeAll, describe, expect, it } from 'vitest';
import { type AnalyzedSubcommand, analyzeCommand, loadShellParser } from './index.ts';

const options = { cwd: '/srv/proj', home: '/home/user' };

beforeAll(async () => {
  await loadShellParser();
});

function subcommands(command: string): AnalyzedSubcommand[] {
  const analysis = analyzeCommand(command, options);
  if (analysis.kind !== 'analyzed') throw new Error(`expected analyzed: ${JSON.stringify(analysis)}`);
  return analysis.subcommands;
}

function reason(command: string): string {
  const analysis = analyzeCommand(command, options);
  if (analysis.kind !== 'too-complex') throw new Error(`expected too-complex: ${command}`);
  return analysis.reason;
}

describe('compound commands: every part is a subcommand', () => {
  it.each([
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['while a; do b; done', ['a', 'b']],
    ['until a; do b; done', ['a', 'b']],
    ['for f in $(a); do b; done', ['a', 'b']],
    ['case $(a) in $(b)) c;; *) d;; esac', ['a', 'b', 'c', 'd']],
    ['if a; then for f in x; do while b; do c; done; done; fi', ['a', 'b', 'c']],
    ['[[ -n $(a) ]] && b', ['a', '[[', 'b']],
    ['[ -f "$(a)" ] || b', ['a', '[', 'b']],
  ])('%j', (command, programs) => {
    expect(subcommands(command).map((subcommand) => subcommand.argv[0])).toEqual(programs);
  });

  it('applies a redirection of the construct to every part', () => {
    const parts = subcommands('for f in a; do echo "$f"; ls; done > out.txt');
    expect(parts.map((part) => part.writesTo)).toEqual([['/srv/proj/out.txt'], ['/srv/proj/out.txt']]);
    expect(parts.every((part) => !part.readOnly)).toBe(true);
  });

  it('follows the directory into branches and merges it afterwards', () => {
    const parts = subcommands('if cd src; then ls; else pwd; fi; cat x');
    expect(parts.map((part) => [part.argv[0], part.cwd])).toEqual([
      ['cd', '/srv/proj'],
      ['ls', '/srv/proj/src'],
      // The model knows a cd may have failed, not that the else branch means it did.
      ['pwd', null],
      ['cat', null],
    ]);
    expect(subcommands('if [ -d src ]; then ls; fi; cat x').at(-1)?.cwd).toBe('/srv/proj');
  });

  it('makes the loop variable runtime-valued', () => {
    const [echo] = subcommands('for f in a b; do echo "$f"; done');
    expect(echo?.argv).toEqual(['echo', '__TRACKED_VAR__']);
    expect(echo?.argKinds).toEqual(['literal', 'dynamic']);
  });

  it.each([
    ['for d in a b; do cd "$d"; done', /loop that changes directory/],
    ['while true; do cd src; done', /loop that changes directory/],
    ['case x in a) cd src;& b) ls;; esac', /fall-through/],
    ['for PATH in x; do ls; done', /loop variable PATH/],
    ['for IFS in x; do ls; done', /loop variable IFS/],
  ])('%j is too complex', (command, expected) => {
    expect(reason(command)).toMatch(expected);
  });
});

describe('test expressions', () => {
  it('emits the words bash evaluates', () => {
    expect(subcommands('[ -d src ]')[0]?.argv).toEqual(['[', '-d', 'src', ']']);
    expect(subcommands('[[ -f a && $x == b* ]]')[0]?.argv).toEqual([
      '[[',
      '-f',
      'a',
      '&&',
      '$x',
      '==',
      'b*',
      ']]',
    ]);
    expect(subcommands('[[ $# -eq 0 ]]')[0]?.readOnly).toBe(true);
    expect(subcommands('[ "$a" = x -a -f y ]')[0]?.readOnly).toBe(true);
  });

  it.each([
    ['[ a < b ]', /redirection/],
    ['[ a > b ]', /redirection/],
    ['[ -n $x ]', /unquoted/],
    ['[ * ]', /unquoted/],
    ['[ "$a" "$b" ]', /side by side|syntax error/],
    ['test "$a" "$b"', /side by side/],
    ['test $a', /unquoted/],
    ['command test -n $x', /unquoted/],
    ['[ -v "$x" ]', /-v/],
    ['[[ -v $x ]]', /-v/],
    ["[[ -v 'a[$(id)]' ]]", /-v/],
    ['[[ $x -eq 1 ]]', /arithmetic/],
    ['[[ x -lt 1 ]]', /arithmetic/],
    ["[[ 1 -eq 'a[$(id)]' ]]", /arithmetic/],
    ['[[ 1 -eq $((x)) ]]', /evaluated as code/],
    ['[[ $x =~ a`id` ]]', /expansion/],
    ['[ -f"x" ]', /split one test word/],
  ])('%j is too complex', (command, expected) => {
    expect(reason(command)).toMatch(expected);
  });
});

describe('arithmetic', () => {
  it('keeps the expansion as a runtime-valued word', () => {
    const [echo] = subcommands('echo $(( 1 + 2 * 3 )) "$((0x10 % 3))" $(( $# > 0 ? 1 : 2 ))');
    expect(echo?.argv).toEqual(['echo', '$(( 1 + 2 * 3 ))', '$((0x10 % 3))', '$(( $# > 0 ? 1 : 2 ))']);
    expect(echo?.argKinds).toEqual(['literal', 'dynamic', 'dynamic', 'dynamic']);
  });

  it.each([
    'echo $((x))',
    'echo $(( $x + 1 ))',
    'echo $(( ${x} ))',
    'echo $((i++))',
    'echo $((x = 1))',
    'echo $((x += 1))',
    'echo $((a[0]))',
    'echo $(( $(id) ))',
    'echo $(( `id` ))',
    'echo $(( 10#$x ))',
    'echo $(( $_ ))',
  ])('%j is too complex', (command) => {
    expect(reason(command)).toMatch(/arithmetic|expansion|not analysed|not supported|syntax error/);
  });
});

describe('path listings', () => {
  it.each([
    ['wc -l $(git ls-files)', './**'],
    ['wc -l $(git ls-files src/)', 'src/**'],
    ['wc -l $(git ls-files --cached --others --exclude-standard lib)', 'lib/**'],
  ])('%j reads below a directory', (command, word) => {
    const wc = subcommands(command).at(-1);
    expect(wc?.argv.at(-1)).toBe(word);
    expect(wc?.argKinds.at(-1)).toBe('glob');
  });

  it.each([
    'wc -l $(git ls-files ..)',
    'wc -l $(git ls-files :/)',
    'wc -l $(git ls-files --full-name)',
    'wc -l $(git ls-files a b)',
    'wc -l "$(git ls-files)"',
    'wc -l x$(git ls-files)',
    'wc -l $(git ls-files | head)',
    'wc -l $(cd .. && git ls-files)',
    'wc -l $(timeout 5 git ls-files)',
    'wc -l $(git -C .. ls-files)',
  ])('%j stays an unknown substitution', (command) => {
    const last = subcommands(command).find((subcommand) => subcommand.argv[0] === 'wc');
    expect(last?.argKinds.at(-1)).toBe('dynamic');
  });
});
