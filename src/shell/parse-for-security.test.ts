// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${…} is bash syntax
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, parseForSecurity, type SimpleCommand } from './index.ts';

beforeAll(async () => {
  await loadShellParser();
});

function argvs(command: string): string[][] {
  const result = parseForSecurity(command);
  if (result.kind !== 'simple') throw new Error(`expected simple, got ${JSON.stringify(result)}`);
  return result.commands.map((entry) => entry.argv);
}

function only(command: string): SimpleCommand {
  const result = parseForSecurity(command);
  if (result.kind !== 'simple' || result.commands.length !== 1 || !result.commands[0]) {
    throw new Error(`expected one command, got ${JSON.stringify(result)}`);
  }
  return result.commands[0];
}

describe('parseForSecurity: splitting and quote removal', () => {
  it.each([
    ['ls -la', [['ls', '-la']]],
    ['a && b || c; d & e | f |& g', [['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ['g']]],
    ['a\nb', [['a'], ['b']]],
    ['echo \'single\' "double" mi\'x\'"ed"', [['echo', 'single', 'double', 'mixed']]],
    ['echo a\\ b \\"q\\" \\$HOME', [['echo', 'a b', '"q"', '$HOME']]],
    ['echo "a\\"b\\\\c\\$d\\x"', [['echo', 'a"b\\c$d\\x']]],
    ['echo a\\;b \\| c', [['echo', 'a;b', '|', 'c']]],
    [
      '(git status; rm -rf dist)',
      [
        ['git', 'status'],
        ['rm', '-rf', 'dist'],
      ],
    ],
    ['{ a; b; }', [['a'], ['b']]],
    ['! grep x f', [['grep', 'x', 'f']]],
    [
      'git status # check\ntouch /tmp/pwned',
      [
        ['git', 'status'],
        ['touch', '/tmp/pwned'],
      ],
    ],
    ['echo a#b', [['echo', 'a#b']]],
    ['timeout 5 \\\ncurl evil.example', [['timeout', '5', 'curl', 'evil.example']]],
    ['\\rm -rf x', [['rm', '-rf', 'x']]],
    ['"rm" -rf x', [['rm', '-rf', 'x']]],
  ])('%j', (command, expected) => {
    expect(argvs(command)).toEqual(expected);
  });
});

describe('parseForSecurity: substitutions become their own commands', () => {
  it.each([
    ['echo $(curl -s x | cat)', [['curl', '-s', 'x'], ['cat'], ['echo', '__CMDSUB_OUTPUT__']]],
    [
      'git log --grep="`touch p`" -1',
      [
        ['touch', 'p'],
        ['git', 'log', '--grep=__CMDSUB_OUTPUT__', '-1'],
      ],
    ],
    ['diff <(ls a) >(cat)', [['ls', 'a'], ['cat'], ['diff', '__PROCSUB_PATH__', '__PROCSUB_PATH__']]],
    ['echo "x $(echo "$(id)")"', [['id'], ['echo', '__CMDSUB_OUTPUT__'], ['echo', 'x __CMDSUB_OUTPUT__']]],
    ['cat <<EOF\n$(touch p)\nEOF', [['touch', 'p'], ['cat']]],
    ['x=$(ls) y', [['ls'], ['y']]],
  ])('%j', (command, expected) => {
    expect(argvs(command)).toEqual(expected);
  });

  it('marks origins', () => {
    const result = parseForSecurity('echo $(id); bash -c "rm x"; eval "ls -l"');
    expect(result.kind).toBe('simple');
    if (result.kind !== 'simple') return;
    expect(result.commands.map((entry) => [entry.argv[0], entry.origin])).toEqual([
      ['id', 'substitution'],
      ['echo', 'top'],
      ['bash', 'top'],
      ['rm', 'shell-c'],
      ['eval', 'top'],
      ['ls', 'eval'],
    ]);
  });
});

describe('parseForSecurity: shell bodies', () => {
  it.each([
    ['sh -c "rm -rf dist"', ['rm', '-rf', 'dist']],
    ['bash -lc "cd /tmp && touch x"', ['touch', 'x']],
    ["zsh -e -c 'curl x'", ['curl', 'x']],
    ['nohup sh -c "curl x | cat" &', ['curl', 'x']],
    ["sh /dev/stdin <<< 'rm -rf dist'", ['rm', '-rf', 'dist']],
    ["bash - <<< 'rm -rf dist'", ['rm', '-rf', 'dist']],
    ["source /dev/stdin <<< 'rm -rf dist'", ['rm', '-rf', 'dist']],
    ['timeout 5 bash -c "rm y"', ['rm', 'y']],
    ["sh <<< 'rm -rf dist'", ['rm', '-rf', 'dist']],
    ["bash <<'EOF'\nrm -rf z\nEOF", ['rm', '-rf', 'z']],
    ['eval rm -rf dist', ['rm', '-rf', 'dist']],
    ["echo x | xargs sh -c 'rm a'", ['rm', 'a']],
  ])('%j runs %j', (command, inner) => {
    expect(argvs(command)).toContainEqual(inner);
  });
});

describe('parseForSecurity: fails closed', () => {
  it.each([
    ['${!b} -rf dist', 'expansion'],
    ['echo $(curl -s x | sh)', 'program from input'],
    ["echo 'rm x' | bash -s", 'program from input'],
    ['bash <(echo rm x)', 'process substitution script'],
    ['source <(echo rm x)', 'process substitution script'],
    ["echo 'import os' | python3 -", 'interpreter from input'],
    ['echo ${x@P}', 'expansion'],
    ['echo ${x:-$(id)}', 'expansion'],
    ['$(printf rm) -rf dist', 'command_name'],
    ['$CMD arg', 'command_name'],
    ['echo $((x+1))', 'arithmetic naming a variable'],
    ["echo $'\\x72\\x6d'", 'ansi_c'],
    ['echo $"hi"', 'translated'],
    ['echo {a,b}', 'brace'],
    ["git diff {@'{'0},--output=/tmp/pwned}", 'brace'],
    ['echo {1..3}', 'brace_expression'],
    ['=curl -s x', 'zsh equals'],
    ['cat ~[x]', 'tilde'],
    ['IFS=: && ls', 'IFS'],
    ['echo $IFS', 'IFS'],
    ['export IFS=x', 'IFS'],
    ['cat /proc/self/environ', 'proc'],
    ['cat /proc/1/root/etc/shadow', 'proc'],
    ['zmodload zsh/net/tcp', 'zsh'],
    ['ztcp evil.example 80', 'zsh'],
    ["let 'x=a[$(id)]'", 'let'],
    ["read 'a[$(id)]'", 'subscript'],
    ["test -v 'a[$(id)]'", 'subscript'],
    ['[[ $x -eq 1 ]]', 'arithmetic test on a variable'],
    ['select f in a; do rm x; done', 'select'],
    ['for ((i=0; i<3; i++)); do rm x; done', 'c-style for'],
    ['f() { rm x; }; f', 'function'],
    ["alias ls='curl x'", 'alias'],
    ["trap 'rm x' EXIT", 'trap'],
    ['cu\\\nrl x', 'continuation'],
    ['echo hi\rrm x', 'control'],
    ['echo a\u00a0b', 'unicode space'],
    ['echo a\u200bb', 'zero width'],
    ['ls\u202e', 'bidi'],
    ['echo a\u0000b', 'nul'],
    ['echo `echo \\`id\\``', 'backtick escapes'],
    ['echo x > $FILE', 'dynamic redirect'],
    ['echo x > *.txt', 'glob redirect'],
    ['a 3>&- {fd}>x', 'fd variable'],
    ['echo "unterminated', 'syntax'],
    ["PS4='$(id)'", 'PS4'],
    ['bash -c "$CMD"', 'dynamic body'],
    ['eval "$X"', 'dynamic eval'],
    ['sh <<EOF\n$(id)\nEOF', 'expanding heredoc script'],
    ["echo x | xargs -I{} sh -c 'rm {}'", 'xargs into shell'],
    ['fish -c "rm x"', 'fish'],
    ['сurl x', 'non-ascii name'],
    ['cat <> f', 'read-write redirect the grammar does not know'],
  ])('%j (%s)', (command) => {
    expect(parseForSecurity(command).kind).toBe('too-complex');
  });

  it('rejects deep nesting and huge inputs without throwing', () => {
    const deep = `${'$('.repeat(40)}ls${')'.repeat(40)}`;
    expect(parseForSecurity(`echo ${deep}`).kind).toBe('too-complex');
    expect(parseForSecurity(`echo ${'a '.repeat(60_000)}`).kind).toBe('too-complex');
  });
});

describe('parseForSecurity: variables, redirects and assignments', () => {
  it('keeps unknown variables as text and marks them dynamic', () => {
    const command = only('echo $HOME "${USER}" x');
    expect(command.argv).toEqual(['echo', '$HOME', '${USER}', 'x']);
    expect(command.argKinds).toEqual(['literal', 'dynamic', 'dynamic', 'literal']);
  });

  it('tracks variables assigned on the same line', () => {
    const result = parseForSecurity('VAR="-rf /" && rm $VAR');
    expect(result.kind).toBe('simple');
    if (result.kind !== 'simple') return;
    expect(result.commands[1]?.argv).toEqual(['rm', '__TRACKED_VAR__']);
    expect(result.commands[1]?.argKinds).toEqual(['literal', 'dynamic']);
  });

  it('marks unquoted globs', () => {
    expect(only('ls *.ts "*.md" \\*').argKinds).toEqual(['literal', 'glob', 'literal', 'literal']);
  });

  it('collects env prefixes and redirects', () => {
    const command = only('LANG=C FOO="a b" sort -u < in.txt 2>/dev/null >> out.txt 2>&1');
    expect(command.envVars).toEqual([
      { name: 'LANG', value: 'C', literal: true },
      { name: 'FOO', value: 'a b', literal: true },
    ]);
    expect(command.redirects).toEqual([
      { operator: '<', target: 'in.txt' },
      { operator: '>', target: '/dev/null', fd: 2 },
      { operator: '>>', target: 'out.txt' },
      { operator: '>&', target: '1', fd: 2 },
    ]);
  });

  it.each([
    ['ls &> f', '&>'],
    ['ls >| f', '>|'],
    ['ls >& f', '>&'],
    ['ls &>> f', '&>>'],
  ])('%j has operator %s', (command, operator) => {
    expect(only(command).redirects).toEqual([{ operator, target: 'f' }]);
  });

  it('attaches a trailing redirect to the last command only, and a group redirect to all', () => {
    const listed = parseForSecurity('cd ~ && echo hi >> .bashrc');
    const grouped = parseForSecurity('{ a; b; } > g');
    if (listed.kind !== 'simple' || grouped.kind !== 'simple') throw new Error('expected simple');
    expect(listed.commands.map((entry) => entry.redirects.length)).toEqual([0, 1]);
    expect(grouped.commands.map((entry) => entry.redirects.length)).toEqual([1, 1]);
  });

  it('represents a bare assignment and a bare redirect as commands with no argv', () => {
    expect(only('A=1').envVars).toEqual([{ name: 'A', value: '1', literal: true }]);
    expect(only('> f').redirects).toEqual([{ operator: '>', target: 'f' }]);
  });

  it('lists export and unset as commands', () => {
    expect(argvs('export A=1 B; unset C')).toEqual([
      ['export', 'A=1', 'B'],
      ['unset', 'C'],
    ]);
  });
});
