import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Names a file system takes for the same name (class `folded-names`,
 * docs/decisions/security-folded-names.md). macOS file systems compare names after Unicode
 * normalisation (APFS) or store them decomposed (HFS+), HFS+ ignores zero-width and other
 * default-ignorable code points (CVE-2014-9390), and case-insensitive volumes fold case with
 * Unicode's case folding (the Kelvin sign is `k`, the long s is `s`). Deny rules folded ASCII case
 * only, so on those volumes `Read(./.env)` did not hold for `.e<U+200C>nv`, `Read(./café.txt)` for
 * the decomposed `café.txt`, `Read(*.key)` for `x.<U+212A>ey`, nor `Edit(...)` for writes under them.
 */

const place = decisionPlace('efferent-folded-', ({ project, home }) => {
  mkdirSync(join(project, 'secrets'));
  mkdirSync(join(project, 'src'));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(project, '.env'), 'KEY=1\n');
  writeFileSync(join(project, 'secrets', 'token.txt'), 't\n');
  writeFileSync(join(project, 'caf\u00e9.txt'), 'c\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k\n');
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const ignorables = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u034f', '\u200e', '\u180e'];

/** Every spelling of `name` with one ignorable code point inserted after each character but the last. */
function withIgnorables(name: string): string[] {
  const spellings: string[] = [];
  for (const mark of ignorables)
    for (let at = 1; at < name.length; at++) spellings.push(`${name.slice(0, at)}${mark}${name.slice(at)}`);
  return spellings;
}

/** Case spellings Unicode case folding joins to the name (Kelvin sign for k, long s for s). */
function foldedCase(name: string): string[] {
  const spellings = [name.toUpperCase()];
  if (name.includes('k')) spellings.push(name.replaceAll('k', '\u212a'));
  if (name.includes('s')) spellings.push(name.replaceAll('s', '\u017f'));
  return spellings;
}

type Target = { rule: string; editRule: string; names: string[] };
const targets = (): Target[] => [
  {
    rule: 'Read(./.env)',
    editRule: 'Edit(./.env)',
    names: [...withIgnorables('.env'), ...foldedCase('.env')],
  },
  {
    rule: 'Read(./secrets/**)',
    editRule: 'Edit(./secrets/**)',
    names: [
      ...withIgnorables('secrets').map((dir) => `${dir}/token.txt`),
      ...foldedCase('secrets').map((dir) => `${dir}/token.txt`),
    ],
  },
  {
    rule: 'Read(./caf\u00e9.txt)',
    editRule: 'Edit(./caf\u00e9.txt)',
    names: ['cafe\u0301.txt', 'CAFE\u0301.txt', 'CAF\u00c9.txt', 'ca\u200bf\u00e9.txt'],
  },
  {
    rule: 'Read(./cafe\u0301.txt)',
    editRule: 'Edit(./cafe\u0301.txt)',
    names: ['caf\u00e9.txt', 'CAF\u00c9.txt'],
  },
  { rule: 'Read(*.key)', editRule: 'Edit(*.key)', names: ['x.\u212aey', 'x.k\u200bey', 'deep/x.KEY'] },
  {
    rule: 'Read(~/.ssh/**)',
    editRule: 'Edit(~/.ssh/**)',
    names: [...withIgnorables('.ssh').map((dir) => `~/${dir}/id_rsa`), '~/.\u017f\u017fh/id_rsa'],
  },
];

describe('deny rules hold for every spelling a file system folds to the same name (generated)', () => {
  it('Read, Grep and Bash readers never allow a folded spelling of a denied file', async () => {
    let count = 0;
    for (const { rule, names } of targets())
      for (const name of names)
        for (const call of [
          { tool: 'Read', input: { file_path: name } },
          { tool: 'Grep', input: { pattern: 'x', path: name } },
          { tool: 'Bash', input: { command: `cat '${name.replace('~/', `${place.home}/`)}'` } },
        ]) {
          const result = await place.decideTool(call.tool, call.input, { deny: [rule] }, 'default');
          expect(result.behavior, `${call.tool} ${JSON.stringify(name)} ${rule}`).not.toBe('allow');
          count++;
        }
    expect(count).toBeGreaterThan(300);
  });

  it('Write and Edit never change a folded spelling of a file an Edit deny rule covers, in any mode', async () => {
    for (const { editRule, names } of targets())
      for (const name of names)
        for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
          const write = await place.decideTool(
            'Write',
            { file_path: name, content: 'x\n' },
            { deny: [editRule] },
            mode,
          );
          expect(write.behavior, `${mode} Write ${JSON.stringify(name)} ${editRule}`).toBe('deny');
        }
  });

  it('the rule itself may be written in any of those spellings', async () => {
    for (const rule of ['Read(./.e\u200cnv)', 'Read(./.ENV)', 'Read(./\ufeff.env)']) {
      const result = await place.decideTool('Read', { file_path: '.env' }, { deny: [rule] }, 'default');
      expect(result.behavior, rule).toBe('deny');
    }
  });

  it('keeps names that differ by more than folding allowed', async () => {
    const neighbours: Array<[string, string]> = [
      ['Read(./.env)', '.envrc'],
      ['Read(./.env)', 'env'],
      ['Read(./.env)', '.env-example/x'],
      ['Read(./caf\u00e9.txt)', 'cafe.txt'],
      ['Read(*.key)', 'x.keys'],
      ['Read(./secrets/**)', 'secret/token.txt'],
      ['Read(./secrets/**)', 'src/app.ts'],
    ];
    for (const [rule, name] of neighbours) {
      const result = await place.decideTool('Read', { file_path: name }, { deny: [rule] }, 'default');
      expect(result.behavior, `${name} ${rule}`).toBe('allow');
    }
    const plain = await place.decide('cat src/app.ts', { deny: ['Read(./.env)'] }, 'default');
    expect(plain.behavior).toBe('allow');
  });

  it('allow rules stay exact: a folded spelling is not allowed by a rule for the other', async () => {
    const result = await place.decideTool(
      'Write',
      { file_path: 'src/\u212aey.ts', content: 'x\n' },
      { allow: ['Edit(./src/key.ts)'] },
      'default',
    );
    expect(result.behavior).not.toBe('allow');
  });
});
