// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${…} is bash syntax
import { beforeAll, describe, expect, it } from 'vitest';
import { planHeredocs } from './heredoc.ts';
import { isReadOnlyCommand, loadShellParser, parseForSecurity } from './index.ts';
import { TooComplexError } from './walk-errors.ts';

beforeAll(async () => {
  await loadShellParser();
});

function commands(command: string): Array<{ argv: string[]; origin: string }> {
  const result = parseForSecurity(command);
  if (result.kind !== 'simple') throw new Error(`expected simple, got ${JSON.stringify(result)}`);
  return result.commands.map((entry) => ({ argv: entry.argv, origin: entry.origin ?? 'top' }));
}

function firstSpan(command: string) {
  const span = planHeredocs(command)?.heredocs[0];
  if (!span) throw new Error(`no heredoc in ${JSON.stringify(command)}`);
  return span;
}

describe('planHeredocs: the delimiter after quote removal, as bash computes it', () => {
  it.each([
    ['EOF', 'EOF', false],
    ["'EOF'", 'EOF', true],
    ['"EOF"', 'EOF', true],
    ['E"O"F', 'EOF', true],
    ['\\EOF', 'EOF', true],
    ['E\\OF', 'EOF', true],
    [`"E"'O'F`, 'EOF', true],
    ['END_1', 'END_1', false],
  ])('<<%s ends at %s (quoted: %s)', (word, delimiter, quoted) => {
    const span = firstSpan(`cat <<${word}\nbody\n${delimiter}\n`);
    expect(span.delimiter).toBe(delimiter);
    expect(span.quoted).toBe(quoted);
    expect(span.body).toBe('body\n');
  });

  it.each(["<<$'EOF'", '<<$"EOF"', '<<$EOF', '<<`x`', "<<''", '<<E{O}F'])(
    'a delimiter it does not model (%s) is too complex',
    (operator) => {
      expect(() => planHeredocs(`cat ${operator}\nbody\nEOF\n`)).toThrow(TooComplexError);
    },
  );
});

describe('planHeredocs: where bash ends the body', () => {
  it('joins backslash-newline in an unquoted body before comparing, so x\\<newline>EOF is body', () => {
    const span = firstSpan('cat <<EOF\nx\\\nEOF\nrm -rf /\nEOF\n');
    expect(span.body).toBe('xEOF\nrm -rf /\n');
  });

  it('keeps backslash-newline in a quoted body', () => {
    const span = firstSpan("cat <<'EOF'\nx\\\nEOF\nrest\n");
    expect(span.body).toBe('x\\\n');
  });

  it('refuses a terminator spelled with a line continuation (EO\\<newline>F ends the body in bash)', () => {
    expect(() => planHeredocs('cat <<EOF\nhi\nEO\\\nF\nrm -rf /\nEOF')).toThrow(TooComplexError);
  });

  it('strips leading tabs for <<- (after joining lines), not spaces', () => {
    expect(firstSpan('cat <<-EOF\n\tone\\\n\ttwo\n\t\tEOF\n').body).toBe('one\ttwo\n');
    expect(firstSpan('cat <<-EOF\n  x\n EOF\n\tEOF\n').body).toBe('  x\n EOF\n');
    expect(firstSpan('cat <<EOF\n\tEOF\nEOF\n').body).toBe('\tEOF\n');
  });

  it('needs the whole line: trailing blanks or a semicolon do not end the body', () => {
    expect(firstSpan('cat <<EOF\nEOF \nEOF;\nEOF\n').body).toBe('EOF \nEOF;\n');
  });

  it('reads bodies in order after the line that holds the operators', () => {
    const plan = planHeredocs('cat <<A; echo "x\ny"; cat <<B\none\nA\ntwo\nB\necho done');
    expect(plan?.heredocs.map((span) => [span.delimiter, span.body])).toEqual([
      ['A', 'one\n'],
      ['B', 'two\n'],
    ]);
  });

  it('ignores << in quotes, comments and arithmetic', () => {
    expect(planHeredocs('echo \'<<EOF\' "<<X" # <<Y\necho $((1<<2))')).toBeUndefined();
  });

  it.each([
    ['an unterminated heredoc', 'cat <<EOF\n$(rm -rf /)\n'],
    ['no line after the operator', 'cat <<EOF'],
    ['a substitution closed before the body', 'echo "$(cat <<EOF)"\nbody\nEOF'],
    ['a fake terminator inside a substitution', 'cat <<EOF\n$(echo x\nEOF\n)\nEOF'],
  ])('refuses %s', (_name, command) => {
    expect(() => planHeredocs(command)).toThrow(TooComplexError);
  });
});

describe('unquoted heredoc bodies are code where bash expands them', () => {
  it.each([
    ['$(…)', 'cat <<EOF\nx $(rm -rf build) y\nEOF'],
    ['backticks', 'cat <<EOF\nx `rm -rf build` y\nEOF'],
    ['<<- with tabs', 'cat <<-EOF\n\t$(rm -rf build)\n\tEOF'],
    ['an escaped backslash before $(', 'cat <<EOF\n\\\\$(rm -rf build)\nEOF'],
    ['$ joined to ( by a line continuation', 'cat <<EOF\n$\\\n(rm -rf build)\nEOF'],
    ['double quotes, which are text in a body', 'cat <<EOF\n"$(rm -rf build)"\nEOF'],
    ['a heredoc inside $( )', 'echo "$(cat <<EOF\n$(rm -rf build)\nEOF\n)"'],
    ['a heredoc inside a body substitution', 'cat <<EOF\n$(cat <<X\n$(rm -rf build)\nX\n)\nEOF'],
    ['a pipeline', 'cat <<EOF | wc -l\n$(rm -rf build)\nEOF'],
  ])('a denied command in %s is reported as a command', (_name, command) => {
    expect(commands(command)).toContainEqual({ argv: ['rm', '-rf', 'build'], origin: 'substitution' });
    expect(isReadOnlyCommand(command)).toBe(false);
  });

  it.each([
    ['an escaped $', 'cat <<EOF\n\\$(rm -rf build)\nEOF'],
    ['a quoted delimiter', "cat <<'EOF'\n$(rm -rf build)\n`rm -rf build`\nEOF"],
    ['a backslash-quoted delimiter', 'cat <<\\EOF\n$(rm -rf build)\nEOF'],
    ['a partly quoted delimiter', 'cat <<E"O"F\n$(rm -rf build)\nEOF'],
  ])('%s keeps the body inert data', (_name, command) => {
    const result = parseForSecurity(command);
    if (result.kind === 'simple') {
      expect(result.commands.map((entry) => entry.argv[0])).not.toContain('rm');
    } else {
      expect(result.kind).toBe('too-complex');
    }
  });

  it('keeps everyday heredocs read-only or analysable', () => {
    expect(isReadOnlyCommand("cat <<'EOF'\n$(rm -rf /)\nEOF")).toBe(true);
    expect(isReadOnlyCommand('cat <<EOF\nhello $USER and ${HOME}\nEOF')).toBe(true);
    expect(isReadOnlyCommand("cat <<-'EOF'\n\t$(rm -rf /)\n\tEOF")).toBe(true);
    expect(commands('cat <<EOF > notes.txt\nhi\nEOF')).toEqual([{ argv: ['cat'], origin: 'top' }]);
    expect(commands('git commit -m "$(cat <<\'EOF\'\nFix $(thing)\n\nDetails\nEOF\n)"')).toEqual([
      { argv: ['cat'], origin: 'substitution' },
      { argv: ['git', 'commit', '-m', '__CMDSUB_OUTPUT__'], origin: 'top' },
    ]);
  });

  it('shows the original heredoc text, not the masked one', () => {
    const result = parseForSecurity('git commit -m "$(cat <<\'EOF\'\nFix it\nEOF\n)"');
    expect(result.kind === 'simple' && result.commands[1]?.text).toContain('Fix it');
  });

  it.each([
    ['${…} with an operator', 'cat <<EOF\n${x:-$(rm -rf build)}\nEOF'],
    ['arithmetic $((…))', 'cat <<EOF\n$((1+$(rm -rf build)))\nEOF'],
    ['arithmetic $[…]', 'cat <<EOF\n$[1+$(rm -rf build)]\nEOF'],
    ['backslashes in backticks', 'cat <<EOF\n`echo \\`rm x\\``\nEOF'],
    ['a CRLF terminator', 'cat <<EOF\r\n$(rm -rf build)\r\nEOF\r\n'],
  ])('%s in a body is too complex', (_name, command) => {
    expect(parseForSecurity(command).kind).toBe('too-complex');
  });

  it('feeds a shell the body bash would run (tabs stripped), and refuses expanding ones', () => {
    expect(commands("bash <<-'EOF'\n\trm -rf build\n\tEOF")).toContainEqual({
      argv: ['rm', '-rf', 'build'],
      origin: 'shell-c',
    });
    expect(parseForSecurity('sh <<EOF\necho $(id)\nEOF').kind).toBe('too-complex');
  });
});
