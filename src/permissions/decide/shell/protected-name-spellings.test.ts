import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../core/index.ts';
import { getAllBaseTools } from '../../../registry/index.ts';
import { type CheckOptions, checkPermissionCase, loadDefaultShellAnalyzer } from '../../index.ts';
import { globMatches, withoutQuotes } from './protected-names.ts';

let options: CheckOptions;
beforeAll(async () => {
  const shell = await loadDefaultShellAnalyzer();
  options = { tools: getAllBaseTools(), defaultHome: '/home/user', ...(shell ? { shell } : {}) };
});

const rules = ['Bash(git *)', 'Bash(npm run *)', 'Bash(node *)', 'Bash(gcc *)', 'Bash(curl *)', 'Bash(cd *)'];
const modes: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions'];
const decide = (command: string, mode: PermissionMode) =>
  checkPermissionCase(
    { tool: 'Bash', input: { command }, cwd: '/srv/proj', mode, rules: { allow: rules, deny: [], ask: [] } },
    options,
  );

const targets = [
  '.envrc',
  '.claude/settings.json',
  'CLAUDE.md',
  '.git/hooks/pre-commit',
  '.husky/pre-commit',
];

/** Ways bash spells the same word: ANSI-C escapes (hex, octal, unicode), quotes split in, backslashes. */
function spellings(word: string): string[] {
  const hex = (char: string) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const octal = (char: string) => `\\${char.charCodeAt(0).toString(8).padStart(3, '0')}`;
  const unicode = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const first = word.charAt(0);
  const rest = word.slice(1);
  const middle = Math.max(1, word.length >> 1);
  return [
    `$'${hex(first)}${rest}'`,
    `$'${octal(first)}${rest}'`,
    `$'${unicode(first)}${rest}'`,
    `$'${[...word].map(hex).join('')}'`,
    `$'${[...word].map(octal).join('')}'`,
    `${word.slice(0, middle)}''${word.slice(middle)}`,
    `${word.slice(0, middle)}"${word.slice(middle)}"`,
    `\\${first}${rest}`,
    `"${word.slice(0, middle)}"'${word.slice(middle)}'`,
    `$"${word}"`,
  ];
}

describe('protected names spelled through quoting, in commands too complex to check', () => {
  const shapes = ['echo x > W # \u200b', 'node g.js W # \u200b', 'cp a W\u2060', 'node g.js W'];
  it('asks in bypassPermissions for every spelling', async () => {
    let count = 0;
    for (const target of targets)
      for (const spelled of spellings(target))
        for (const shape of shapes) {
          const command = shape.replace('W', () => spelled);
          const verdict = await decide(command, 'bypassPermissions');
          expect(verdict.behavior, JSON.stringify(command)).not.toBe('allow');
          count++;
        }
    expect(count).toBe(200);
  });

  it('leaves commands without a protected name as they were', async () => {
    for (const command of ["echo $'\\x41' # \u200b", "node g.js $'a\\tb' src/a.ts", "echo 'a''b' # \u200b"])
      expect((await decide(command, 'bypassPermissions')).behavior, command).toBe('allow');
  });

  it('decodes as bash does', () => {
    expect(withoutQuotes("$'\\x2eenvrc'")).toBe('.envrc');
    expect(withoutQuotes("$'\\056envrc'")).toBe('.envrc');
    expect(withoutQuotes("$'\\u002eclaude'")).toBe('.claude');
    expect(withoutQuotes('.en\'\'v"r"\\c')).toBe('.envrc');
    expect(withoutQuotes("$'a\\'b'")).toBe("a'b");
  });
});

describe('a command that is not read-only, after a change into a protected directory', () => {
  const entries = [
    'cd .claude',
    'pushd .claude',
    'cd ./.git',
    'cd .git/hooks',
    'pushd -n .husky',
    'cd /srv/proj/.claude',
  ];
  const joins = ['; ', ' && ', ' || ', '\n'];
  const later = [
    'node ../g.js settings.json',
    'curl -O http://example.com/pre-commit',
    'gcc -o x ../x.c',
    'npm run build',
  ];
  it('asks in every mode, whatever joins them', async () => {
    for (const entry of entries)
      for (const join of joins)
        for (const command of later)
          for (const mode of modes) {
            const line = `${entry}${join}${command}`;
            expect((await decide(line, mode)).behavior, `${mode}: ${JSON.stringify(line)}`).not.toBe('allow');
          }
  });

  it('keeps read-only commands and ordinary directories as they were', async () => {
    for (const mode of modes) {
      expect((await decide('cd .git && git status', mode)).behavior).toBe('allow');
      expect((await decide('cd src && npm run build', mode)).behavior).toBe('allow');
    }
  });
});

describe('a pattern whose matches may include a protected path, matching or not', () => {
  const patterns = [
    '.envr?',
    '.env[r]c',
    '.e*rc',
    '.claude/settings.jso[n]',
    '.clau*/settings.json',
    '.c?aude/settings.json',
    'CLAUDE.m?',
    'CLAUDE.*',
    'AGENT?.md',
    '[C]LAUDE.md',
    '.husk?/pre-commit',
    '.git*/hooks/pre-commit',
    '.[a-z]*rc',
    'sub/.vscod[e]/settings.json',
    '.g?t/config',
  ];
  const writers = ['node g.js P', 'gcc -o P x.c', 'node g.js --out P', 'npm run gen -- P'];
  it('asks in every mode', async () => {
    for (const pattern of patterns)
      for (const writer of writers)
        for (const mode of modes) {
          const command = writer.replace('P', () => pattern);
          expect((await decide(command, mode)).behavior, `${mode}: ${command}`).not.toBe('allow');
        }
  });

  it('matches as bash does', () => {
    expect(globMatches('.envr?', '.envrc')).toBe(true);
    expect(globMatches('*rc', '.envrc')).toBe(false);
    expect(globMatches('.[!a]nvrc', '.envrc')).toBe(true);
    expect(globMatches('.[a-d]nvrc', '.envrc')).toBe(false);
    expect(globMatches('CLAUDE.*', 'claude.md')).toBe(true);
  });

  it('keeps everyday patterns as they were', async () => {
    for (const command of [
      'node g.js src/*.ts',
      'npm run lint -- src/*.ts',
      'gcc -o app src/*.c',
      'node g.js test/**/*.js',
    ])
      for (const mode of modes)
        expect((await decide(command, mode)).behavior, `${mode}: ${command}`).toBe('allow');
  });
});

describe('a pattern starting with * that matches a protected file now', () => {
  it('asks when the folder holds one, and stays allowed when it does not', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-star-')));
    try {
      mkdirSync(join(project, 'src'));
      mkdirSync(join(project, 'sub'));
      writeFileSync(join(project, 'src/a.ts'), 'x');
      writeFileSync(join(project, 'README.md'), 'x');
      const at = (command: string, mode: PermissionMode) =>
        checkPermissionCase(
          {
            tool: 'Bash',
            input: { command },
            cwd: project,
            mode,
            rules: { allow: rules, deny: [], ask: [] },
          },
          options,
        );
      const shapes = [
        'node g.js *',
        'node g.js *.md',
        'node g.js ./*',
        'gcc -o x *.c *',
        'npm run fmt -- sub/*',
      ];
      for (const mode of modes)
        for (const shape of shapes)
          expect((await at(shape, mode)).behavior, `${mode}: ${shape}`).toBe('allow');
      for (const planted of ['CLAUDE.md', 'sub/AGENTS.md', 'pnpmfile.js', 'sub/GEMINI.md']) {
        writeFileSync(join(project, planted), 'x');
        const command = planted.startsWith('sub/') ? 'npm run fmt -- sub/*' : 'node g.js *';
        for (const mode of modes)
          expect((await at(command, mode)).behavior, `${mode}: ${command} with ${planted}`).not.toBe('allow');
        rmSync(join(project, planted));
      }
      for (const mode of modes) expect((await at('node g.js src/*.ts', mode)).behavior).toBe('allow');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
