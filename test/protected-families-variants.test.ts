import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldName, protectedFamilies } from '../src/core/protected-paths.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * Files that make a later everyday action run code or steer an agent (class `protected-families`,
 * docs/decisions/security-protected-families.md): `.hg/hgrc`, `.jj/`, `.ghci`, `.pdbrc`, `.nvim.lua`,
 * `opencode.json`, `.pnpmfile.cjs`, `.python-version`, `mise.toml`, CLAUDE.md/AGENTS.md… were
 * written without a person in acceptEdits, by Write and by Bash. Every entry of every family, in
 * every spelling a file system may treat as the same name, must now ask; ordinary edits stay allowed.
 */

const place = decisionPlace('efferent-families-', ({ project }) => {
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

/** A concrete spelling for each entry: a directory gets a file inside it, a pattern a name it matches. */
function familyTargets(): string[] {
  const targets: string[] = [];
  for (const family of protectedFamilies) {
    targets.push(...(family.files ?? []));
    targets.push(...(family.directories ?? []).map((directory) => `${directory}/config`));
    targets.push(...(family.nested ?? []).map((entry) => `${entry}/x`));
  }
  targets.push(
    'mise.toml',
    '.mise.toml',
    'mise.local.toml',
    '.mise.dev.toml',
    '.rtx.toml',
    'app.code-workspace',
  );
  return [...new Set(targets)];
}

/** Spellings of the same target: case, `./`, a subdirectory, `..` back, and what HFS+/Windows fold away. */
const spellings: Array<(target: string) => string> = [
  (target) => target,
  (target) => target.toUpperCase(),
  (target) => `./${target}`,
  (target) => `src/deep/${target}`,
  (target) => `src/../${target}`,
  (target) => target.replace(/^([^/]+)/, '$1.'),
  (target) => target.replace(/^([^/]+)/, '$1 '),
  (target) => target.replace(/^(.)/, '$1\u200c'),
];

type Writer = (path: string) => { tool: string; input: Record<string, unknown> };
const writers: Writer[] = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: 'x\n' } }),
  (path) => ({ tool: 'Bash', input: { command: `cp src/app.ts '${path}'` } }),
  (path) => ({ tool: 'Bash', input: { command: `touch '${path}'` } }),
  (path) => ({ tool: 'Bash', input: { command: `printf x | tee -a '${path}'` } }),
];

describe('protected families: every entry, spelling and writer asks (generated)', () => {
  it('never allows a write to a family entry in acceptEdits or under broad allow rules', async () => {
    const rules = [{}, { allow: ['Edit(/**)', 'Write', 'Bash(cp *)', 'Bash(touch *)', 'Bash(tee *)'] }];
    let count = 0;
    for (const target of familyTargets())
      for (const spell of spellings)
        for (const write of writers)
          for (const rule of rules) {
            const { tool, input } = write(spell(target));
            const result = await place.decideTool(tool, input, rule, 'acceptEdits');
            expect(result.behavior, `${tool} ${JSON.stringify(input)} ${JSON.stringify(rule)}`).not.toBe(
              'allow',
            );
            count++;
          }
    expect(count).toBeGreaterThan(5000);
  });

  it('names the family in the reason, ending with a period', async () => {
    const result = await place.decideTool('Write', { file_path: '.pdbrc', content: 'x' }, {}, 'acceptEdits');
    expect(result.behavior).toBe('ask');
    expect(result.message).toMatch(/\.pdbrc is run as code by an interpreter/);
    expect(result.message).toMatch(/\.$/);
    const agents = await place.decideTool(
      'Edit',
      { file_path: 'src/AGENTS.md', old_string: 'a', new_string: 'b' },
      {},
      'acceptEdits',
    );
    expect(agents.message).toMatch(/AGENTS\.md is read as instructions/);
  });

  it('keeps ordinary source edits and neighbours of the names allowed', async () => {
    const benign = [
      'src/app.ts',
      'README.md',
      'package.json',
      'Makefile',
      '.github/workflows/ci.yml',
      'docs/claude-notes.md',
      'src/agents.ts',
      'src/mise.ts',
      'src/python_version.py',
      'hg/notes.txt',
      'vim/config.txt',
      '.editorconfig',
    ];
    for (const path of benign) {
      const write = await place.decideTool('Write', { file_path: path, content: 'x\n' }, {}, 'acceptEdits');
      expect(write.behavior, path).toBe('allow');
      expect((await place.decide(`touch ${path}`, {}, 'acceptEdits')).behavior, path).toBe('allow');
    }
  });

  it('folds only what a file system folds', () => {
    expect(foldName('.Git.')).toBe('.git');
    expect(foldName('.g\u200cit')).toBe('.git');
    expect(foldName('\ufeff.hg ')).toBe('.hg');
    expect(foldName('..')).toBe('..');
    expect(foldName('.')).toBe('.');
    expect(foldName('gitx')).toBe('gitx');
  });
});
