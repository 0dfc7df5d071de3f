import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A deny rule means the files its text names, however the text is spelled (class `rule-text`,
 * docs/decisions/security-rule-text.md). Path rules are gitignore patterns, and gitignore reads
 * some texts differently from the person who wrote them: a leading `#` is a comment and a leading
 * `!` a negation (both match nothing), `{a,b}` is two literal braces, and `.//x`, `./a/./x`,
 * `./a/../x` or a doubled slash in an absolute rule match no path at all (paths never contain
 * them). Each such deny rule silently denied nothing.
 */

const place = decisionPlace('efferent-rule-text-', ({ project, home }) => {
  mkdirSync(join(project, 'secrets'));
  mkdirSync(join(project, 'src'));
  mkdirSync(join(project, 'config'));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(project, '.env'), 'KEY=1\n');
  writeFileSync(join(project, '#notes#'), 'n\n');
  writeFileSync(join(project, '!important'), 'i\n');
  writeFileSync(join(project, 'secrets', 'token.txt'), 't\n');
  writeFileSync(join(project, 'config', 'prod.json'), '{}\n');
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k\n');
});

/** Spellings of a rule's text that all mean `./<path>`. */
function projectSpellings(path: string): string[] {
  const [first, ...rest] = path.split('/');
  const tail = rest.join('/');
  return [
    `./${path}`,
    `.//${path}`,
    `./././${path}`,
    `./src/../${path}`,
    `./src/./../${path}`,
    `./${first}//${tail}`.replace(/\/\/$/, ''),
    `//${place.project.slice(1)}/${path}`,
    `//${place.project.slice(1)}//${path}`,
    `//${place.project.slice(1)}/src/../${path}`,
    `/${path}`,
    `/./${path}`,
  ];
}

/** Brace spellings whose alternatives include `./<path>` (or the home rule). */
function braceSpellings(path: string): string[] {
  const dot = path.lastIndexOf('.');
  const spellings = [`./{${path},nothing}`, `{./${path},./nothing}`, `{./nothing,./${path},~/none}`];
  if (dot > 0) spellings.push(`./${path.slice(0, dot)}{${path.slice(dot)},.bak}`);
  spellings.push(`./{${path.split('/')[0]},zz}/**`);
  return spellings;
}

const files = ['.env', 'secrets/token.txt', 'config/prod.json'];

describe('deny rules hold however their text is spelled (generated)', () => {
  it('segment spellings and brace alternatives of a rule deny every reader', async () => {
    let count = 0;
    for (const file of files)
      for (const text of [...projectSpellings(file), ...braceSpellings(file)])
        for (const call of [
          { tool: 'Read', input: { file_path: file } },
          { tool: 'Grep', input: { pattern: 'x', path: file } },
          { tool: 'Bash', input: { command: `cat ${file}` } },
        ]) {
          const rule = `Read(${text})`;
          const result = await place.decideTool(call.tool, call.input, { deny: [rule] }, 'default');
          expect(result.behavior, `${call.tool} ${file} ${rule}`).toBe('deny');
          count++;
        }
    expect(count).toBeGreaterThan(120);
  });

  it('edit deny rules in those spellings stop Write in acceptEdits and bypassPermissions', async () => {
    for (const file of files)
      for (const text of [...projectSpellings(file), ...braceSpellings(file)])
        for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
          const rule = `Edit(${text})`;
          const result = await place.decideTool(
            'Write',
            { file_path: file, content: 'x\n' },
            { deny: [rule] },
            mode,
          );
          expect(result.behavior, `${mode} ${file} ${rule}`).toBe('deny');
        }
  });

  it('a rule naming a file that begins with # is a name, not a comment', async () => {
    for (const [rule, file] of [
      ['Read(#notes#)', '#notes#'],
      ['Read(./!important)', '!important'],
      ['Read(./#notes#)', '#notes#'],
      ['Read(**/#notes#)', '#notes#'],
    ]) {
      for (const call of [
        { tool: 'Read', input: { file_path: file } },
        { tool: 'Bash', input: { command: `cat '${file}'` } },
      ]) {
        const result = await place.decideTool(call.tool, call.input, { deny: [rule as string] }, 'default');
        expect(result.behavior, `${call.tool} ${file} ${rule}`).toBe('deny');
      }
    }
  });

  it('home rules with braces and doubled slashes hold', async () => {
    for (const rule of [
      'Read(~/{.ssh,.aws}/**)',
      'Read(~//.ssh/**)',
      'Read(~/./.ssh/id_rsa)',
      'Read({~/.ssh/**,./x})',
    ]) {
      const result = await place.decideTool(
        'Read',
        { file_path: '~/.ssh/id_rsa' },
        { deny: [rule] },
        'default',
      );
      expect(result.behavior, rule).toBe('deny');
    }
  });

  it('keeps files outside every alternative allowed', async () => {
    const rules = [
      'Read(./{.env,secrets/**})',
      'Read(.//.env)',
      'Read(./src/../.env)',
      'Read(#notes#)',
      'Read({./.env,~/.ssh/**})',
      'Read(./config/{dev,test}.json)',
    ];
    for (const rule of rules)
      for (const file of ['src/app.ts', 'config/prod.json']) {
        const result = await place.decideTool('Read', { file_path: file }, { deny: [rule] }, 'default');
        expect(result.behavior, `${file} ${rule}`).toBe('allow');
        const bash = await place.decide(`grep -rn TODO src`, { deny: [rule] }, 'default');
        expect(bash.behavior, `grep ${rule}`).toBe('allow');
      }
  });
});
