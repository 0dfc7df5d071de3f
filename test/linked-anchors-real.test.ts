import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/**
 * A rule's anchor reached through a link (class `linked-anchors`,
 * docs/decisions/security-linked-anchors.md). `./x` rules are anchored at the cwd and `~/x` rules at
 * home as they are spelled; when either is reached through a symbolic link (macOS `/tmp` and `/var`,
 * a `~/work` link, an automounted home), the physical spelling of the same file — `/private/tmp/p/.env`,
 * or the path a tool reports back — lay outside the anchor, so the deny rule never matched it.
 */

let root = '';
let realProject = '';
let realHome = '';
let linkedProject = '';
let linkedHome = '';
let options: CheckOptions;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-anchors-')));
  realProject = join(root, 'real', 'project');
  realHome = join(root, 'real', 'home');
  mkdirSync(join(realProject, 'secrets'), { recursive: true });
  mkdirSync(join(realHome, '.ssh'), { recursive: true });
  writeFileSync(join(realProject, '.env'), 'KEY=1\n');
  writeFileSync(join(realProject, 'secrets', 'token.txt'), 't\n');
  writeFileSync(join(realProject, 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(realHome, '.ssh', 'id_rsa'), 'k\n');
  mkdirSync(join(root, 'links'));
  linkedProject = join(root, 'links', 'project');
  linkedHome = join(root, 'links', 'home');
  symlinkSync(realProject, linkedProject);
  symlinkSync(realHome, linkedHome);
  const shell = await loadDefaultShellAnalyzer();
  if (!shell) throw new Error('the shell analyser did not load');
  options = { tools: getAllBaseTools(), shell, defaultHome: realHome };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function decide(
  tool: string,
  input: Record<string, unknown>,
  deny: string[],
  mode: PermissionMode = 'default',
) {
  return checkPermissionCase(
    { tool, input, cwd: linkedProject, home: linkedHome, mode, rules: { allow: [], deny, ask: [] } },
    options,
  );
}

describe('deny rules anchored at a linked cwd or home hold for the physical spelling (generated)', () => {
  it('never allows the physical spelling of a file a ./ or ~/ rule denies', async () => {
    const cases: Array<[string, string]> = [
      ['Read(./.env)', join(realProject, '.env')],
      ['Read(.env)', join(realProject, '.env')],
      ['Read(./secrets/**)', join(realProject, 'secrets', 'token.txt')],
      ['Read(/secrets/**)', join(realProject, 'secrets', 'token.txt')],
      ['Read(~/.ssh/**)', join(realHome, '.ssh', 'id_rsa')],
    ];
    let count = 0;
    for (const [rule, path] of cases)
      for (const call of [
        { tool: 'Read', input: { file_path: path } },
        { tool: 'Grep', input: { pattern: 'x', path } },
        { tool: 'Bash', input: { command: `cat ${path}` } },
        { tool: 'Bash', input: { command: `head -n1 ${path}` } },
      ]) {
        const result = await decide(call.tool, call.input, [rule]);
        expect(result.behavior, `${call.tool} ${path} ${rule}`).toBe('deny');
        count++;
      }
    expect(count).toBe(20);
  });

  it('edit deny rules hold for writes to the physical spelling, in acceptEdits and bypassPermissions', async () => {
    for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
      const write = await decide(
        'Write',
        { file_path: join(realProject, '.env'), content: 'x\n' },
        ['Edit(./.env)'],
        mode,
      );
      expect(write.behavior, mode).toBe('deny');
      const bash = await decide(
        'Bash',
        { command: `echo x >> ${join(realProject, '.env')}` },
        ['Edit(./.env)'],
        mode,
      );
      expect(bash.behavior, mode).toBe('deny');
    }
  });

  it('keeps other files allowed under both spellings', async () => {
    for (const path of [join(realProject, 'app.ts'), join(linkedProject, 'app.ts'), 'app.ts']) {
      const result = await decide('Read', { file_path: path }, ['Read(./.env)', 'Read(~/.ssh/**)']);
      expect(result.behavior, path).toBe('allow');
    }
  });
});
