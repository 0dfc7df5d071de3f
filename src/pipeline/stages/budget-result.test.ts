import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createResultBudget } from '../../budget/index.ts';
import { echoTool } from '../../../test/pipeline/fixtures.ts';
import { budgetResult } from './budget-result.ts';

const root = mkdtempSync(join(tmpdir(), 'efferent-budget-stage-'));
afterAll(() => {
  chmodSync(join(root, 'locked'), 0o755);
  rmSync(root, { recursive: true, force: true });
});
const tool = echoTool(); // maxResultSizeChars 1,000

describe('budgetResult (step 11)', () => {
  it('fills empty results even without a budget', async () => {
    expect(await budgetResult(undefined, tool, { type: 'tool_result', toolUseId: 't', content: '' })).toEqual(
      {
        type: 'tool_result',
        toolUseId: 't',
        content: '(Echo completed with no output)',
      },
    );
  });

  it('persists oversized output to the session folder', async () => {
    const budget = createResultBudget({ sessionDir: join(root, 'session') });
    const text = 'line\n'.repeat(500);
    const block = await budgetResult(budget, tool, { type: 'tool_result', toolUseId: 't', content: text });
    const path = /saved to: (\S+)/.exec(String(block.content))?.[1] ?? '';
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('cuts the result inline when the session folder cannot be written', async () => {
    const locked = join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const budget = createResultBudget({ sessionDir: join(locked, 'session') });
    const block = await budgetResult(budget, tool, {
      type: 'tool_result',
      toolUseId: 't',
      content: 'x'.repeat(5_000),
    });
    const content = String(block.content);
    if (process.getuid?.() === 0) {
      expect(content).toMatch(/persisted-output/); // root ignores the permission bits
    } else {
      expect(content.startsWith('x'.repeat(1_000))).toBe(true);
      expect(content).toMatch(/4000 characters cut: the full output could not be saved to disk/);
    }
  });
});
