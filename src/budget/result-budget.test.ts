import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, type ToolResultBlock } from '../core/index.ts';
import { persistText } from './persist.ts';
import { previewText } from './preview.ts';
import { createResultBudget, isPersistedResult, resultTextLength } from './result-budget.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function sessionDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'efferent-budget-'));
  dirs.push(dir);
  return dir;
}

function tool(name: string, maxResultSizeChars?: number) {
  return buildTool({
    name,
    inputSchema: z.object({}),
    prompt: name,
    call: async () => ({ data: '' }),
    ...(maxResultSizeChars === undefined ? {} : { maxResultSizeChars }),
  });
}

function result(content: ToolResultBlock['content'], toolUseId = 'toolu_1'): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content };
}

function lines(count: number, width = 60): string {
  return Array.from(
    { length: count },
    (_, index) => `${String(index).padStart(6, '0')} ${'x'.repeat(width)}`,
  ).join('\n');
}

describe('applyToResult', () => {
  it('keeps results under the threshold and fills in empty ones', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir() });
    const bash = tool('Bash', 30_000);
    expect(await budget.applyToResult(bash, result('short'))).toEqual(result('short'));
    expect(await budget.applyToResult(bash, result('  \n'))).toEqual(
      result('(Bash completed with no output)'),
    );
    expect(await budget.applyToResult(bash, result([]))).toEqual(result('(Bash completed with no output)'));
  });

  it('persists an oversized result atomically and replaces it with a preview', async () => {
    const dir = sessionDir();
    const budget = createResultBudget({ sessionDir: dir });
    const text = lines(1_000); // ~67,000 characters, over Bash's 30,000
    const replaced = await budget.applyToResult(tool('Bash', 30_000), result(text));
    const content = replaced.content as string;
    expect(content.startsWith('<persisted-output>')).toBe(true);
    const path = /saved to: (\S+)/.exec(content)?.[1] ?? '';
    expect(path.startsWith(join(dir, 'tool-results'))).toBe(true);
    expect(path).toMatch(/[0-9a-f]{16}\.txt$/);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(join(dir, 'tool-results'))).toEqual([path.split('/').at(-1)]); // no temp files left
    expect(content).toContain(`${text.length} characters, 1000 lines`);
    expect(content).toContain('000000 xxx');
    expect(content).toMatch(/use Read on .* with offset and limit/);
    expect(content.length).toBeLessThan(2_700);
    expect(isPersistedResult(replaced)).toBe(true);
  });

  it('caps every tool at the global threshold and never persists Infinity tools', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir(), globalThreshold: 50_000 });
    const text = 'y'.repeat(60_000);
    expect(isPersistedResult(await budget.applyToResult(tool('Glob', 100_000), result(text)))).toBe(true);
    expect(await budget.applyToResult(tool('Read', Number.POSITIVE_INFINITY), result(text))).toEqual(
      result(text),
    );
    expect(await budget.applyToResult(tool('Small', 45_000), result('z'.repeat(45_000)))).toEqual(
      result('z'.repeat(45_000)),
    );
  });

  it('never persists images: only the text parts go to disk', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir() });
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, mediaType: 'image/png' as const, data: 'A'.repeat(80_000) },
    };
    const onlyImage = result([image]);
    expect(await budget.applyToResult(tool('Read2', 1_000), onlyImage)).toEqual(onlyImage);
    const mixed = await budget.applyToResult(
      tool('Read2', 1_000),
      result([{ type: 'text', text: 'w'.repeat(5_000) }, image]),
    );
    expect(Array.isArray(mixed.content) && mixed.content[1]).toEqual(image);
    expect(isPersistedResult(mixed)).toBe(true);
  });
});

describe('applyToTurn', () => {
  it('persists the largest fresh results first until the turn fits', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir(), perTurnLimit: 100_000 });
    const blocks = [
      result('a'.repeat(40_000), 'toolu_a'),
      result('b'.repeat(45_000), 'toolu_b'),
      result('c'.repeat(30_000), 'toolu_c'),
      result('d'.repeat(10_000), 'toolu_d'),
    ];
    const after = await budget.applyToTurn(blocks);
    expect(after.map(isPersistedResult)).toEqual([false, true, false, false]);
    expect(after.reduce((sum, block) => sum + resultTextLength(block), 0)).toBeLessThanOrEqual(100_000);
    expect(after.map((block) => block.toolUseId)).toEqual(['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d']);
  });

  it('skips results already persisted and tools that limit themselves', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir(), perTurnLimit: 50_000 });
    const read = tool('Read', Number.POSITIVE_INFINITY);
    const after = await budget.applyToTurn(
      [result('r'.repeat(60_000), 'toolu_read'), result('s'.repeat(20_000), 'toolu_s')],
      {
        toolFor: (id) => (id === 'toolu_read' ? read : undefined),
      },
    );
    expect(after.map(isPersistedResult)).toEqual([false, true]);
  });

  it('leaves a turn under the limit untouched', async () => {
    const budget = createResultBudget({ sessionDir: sessionDir() });
    const blocks = [result('small')];
    expect(await budget.applyToTurn(blocks)).toEqual(blocks);
  });
});

describe('helpers', () => {
  it('previews at a line boundary and never splits a character', () => {
    const { preview, truncated } = previewText(`${'a'.repeat(1_500)}\n${'b'.repeat(1_000)}`, 2_000);
    expect(truncated).toBe(true);
    expect(preview).toBe('a'.repeat(1_500));
    const emoji = previewText('😀'.repeat(1_000), 2_001).preview;
    expect(emoji).toBe('😀'.repeat(500));
  });

  it('stores identical content once', async () => {
    const dir = sessionDir();
    const first = await persistText(dir, 'same');
    const second = await persistText(dir, 'same');
    expect(second).toBe(first);
    expect(readdirSync(join(dir, 'tool-results'))).toHaveLength(1);
  });
});
