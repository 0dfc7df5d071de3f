import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * A deny or ask rule written for one file tool holds for every tool of its family (class
 * `tool-families`, docs/decisions/security-tool-families.md). Only `Read(…)` and `Edit(…)` path
 * rules were looked up, so `Write(*.ipynb)`, `NotebookEdit(./nb/**)`, `MultiEdit(.env)`,
 * `Grep(./secrets/**)` or `Glob(./secrets/**)` denied nothing at all, and a tool-wide `Edit` deny
 * left Write, MultiEdit and NotebookEdit free to change every file in acceptEdits and
 * bypassPermissions (a tool-wide `Read` deny left Grep and Glob free to read).
 */

const place = decisionPlace('efferent-families-', ({ project }) => {
  mkdirSync(join(project, 'secrets'));
  mkdirSync(join(project, 'nb'));
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'secrets', 'token.txt'), 'TOKEN=1\n');
  writeFileSync(
    join(project, 'nb', 'a.ipynb'),
    '{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}\n',
  );
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const editTools = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];
const readTools = ['Read', 'Grep', 'Glob', 'NotebookRead', 'LS'];

type Call = { tool: string; input: Record<string, unknown> };
const writers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Write', input: { file_path: path, content: 'x\n' } }),
  (path) => ({ tool: 'Edit', input: { file_path: path, old_string: 'a', new_string: 'b' } }),
  (path) => ({
    tool: 'MultiEdit',
    input: { file_path: path, edits: [{ old_string: 'a', new_string: 'b' }] },
  }),
  (path) => ({ tool: 'NotebookEdit', input: { notebook_path: path, new_source: 'x', cell_id: 'c0' } }),
];
const readers: Array<(path: string) => Call> = [
  (path) => ({ tool: 'Read', input: { file_path: `${path}/token.txt` } }),
  (path) => ({ tool: 'Grep', input: { pattern: 'TOKEN', path } }),
  (path) => ({ tool: 'Glob', input: { pattern: '*', path } }),
  (path) => ({ tool: 'Bash', input: { command: `cat ${path}/token.txt` } }),
];

describe('deny and ask rules hold for every tool of the family they name (generated)', () => {
  it('a path rule under any edit-tool name stops every edit tool, in acceptEdits and bypassPermissions', async () => {
    let count = 0;
    for (const name of editTools)
      for (const pattern of ['./nb/**', '*.ipynb', 'nb/a.ipynb'])
        for (const write of writers)
          for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
            const { tool, input } = write('nb/a.ipynb');
            const rule = `${name}(${pattern})`;
            const denied = await place.decideTool(tool, input, { deny: [rule] }, mode);
            expect(denied.behavior, `${mode} ${tool} ${rule}`).toBe('deny');
            if (mode === 'acceptEdits') {
              const asked = await place.decideTool(tool, input, { ask: [rule] }, mode);
              expect(asked.behavior, `${mode} ${tool} ask ${rule}`).toBe('ask');
            }
            count++;
          }
    expect(count).toBe(editTools.length * 3 * writers.length * 2);
  });

  it('a path rule under any read-tool name stops every reader', async () => {
    for (const name of readTools)
      for (const pattern of ['./secrets/**', 'secrets', '//**/secrets/**'])
        for (const read of readers) {
          const { tool, input } = read('secrets');
          const rule = `${name}(${pattern})`;
          const result = await place.decideTool(tool, input, { deny: [rule] }, 'default');
          expect(result.behavior, `${tool} ${JSON.stringify(input)} ${rule}`).toBe('deny');
        }
  });

  it('a tool-wide Edit deny covers every edit tool; a tool-wide Read deny every file reader', async () => {
    for (const write of writers)
      for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
        const { tool, input } = write('src/app.ts');
        const result = await place.decideTool(tool, input, { deny: ['Edit'] }, mode);
        expect(result.behavior, `${mode} ${tool}`).toBe('deny');
      }
    for (const read of readers.slice(0, 3)) {
      const { tool, input } = read('src');
      const result = await place.decideTool(tool, input, { deny: ['Read'] }, 'default');
      expect(result.behavior, `${tool} ${JSON.stringify(input)}`).toBe('deny');
    }
  });

  it('allow rules stay with the tool they name, and other files stay allowed', async () => {
    const write = await place.decideTool(
      'Edit',
      { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' },
      { allow: ['Write(./src/**)'] },
      'default',
    );
    expect(write.behavior).toBe('ask');
    for (const rule of ['Write(*.ipynb)', 'NotebookEdit(./nb/**)', 'Grep(./secrets/**)']) {
      const edit = await place.decideTool(
        'Edit',
        { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' },
        { deny: [rule] },
        'acceptEdits',
      );
      expect(edit.behavior, rule).toBe('allow');
      const read = await place.decideTool('Grep', { pattern: 'x', path: 'src' }, { deny: [rule] }, 'default');
      expect(read.behavior, rule).toBe('allow');
    }
  });
});

describe('search results under a deny rule written for a search tool', () => {
  it('the Grep and Glob result filter hides files a Grep(…) or Glob(…) deny rule covers', async () => {
    const { createReadDenyCheck } = await import('../src/permissions/index.ts');
    const { parseRule } = await import('../src/permissions/rules/parse-rule.ts');
    for (const text of ['Grep(./secrets/**)', 'Glob(./secrets/**)', 'LS(secrets)']) {
      const rule = {
        source: 'session' as const,
        behavior: 'deny' as const,
        value: parseRule(text),
        text,
        root: place.project,
        origin: 'test',
      };
      const check = createReadDenyCheck({ rules: { allow: [], deny: [rule], ask: [] }, home: place.home });
      expect(check, text).toBeDefined();
      expect(check?.(join(place.project, 'secrets', 'token.txt'), place.project), text).toBe(true);
      expect(check?.(join(place.project, 'src', 'app.ts'), place.project), text).toBe(false);
    }
  });
});
