import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toolInputJsonSchema } from '../src/core/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';
import { toolContractExamples } from './tool-contract-examples.ts';

/**
 * Every built-in tool honours the same contract: a committed schema (golden file), inputs it must
 * accept and reject, a non-empty prompt, and declared flags. Golden files change only on purpose:
 * run with EFFERENT_UPDATE_GOLDEN=1 and review the diff.
 */
const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden', 'tool-schemas');
const update = process.env['EFFERENT_UPDATE_GOLDEN'] === '1';
const tools = getAllBaseTools({ powershell: true, repl: true, todoWrite: true });

describe.each(tools.map((tool) => [tool.name, tool] as const))('built-in tool %s', (name, tool) => {
  const examples = toolContractExamples[name];

  it('has contract examples', () => {
    expect(examples, `add ${name} to test/tool-contract-examples.ts`).toBeDefined();
  });

  it('matches its committed JSON schema', () => {
    const file = join(goldenDir, `${name}.json`);
    const actual = `${JSON.stringify(toolInputJsonSchema(tool), null, 2)}\n`;
    if (update) {
      mkdirSync(goldenDir, { recursive: true });
      writeFileSync(file, actual);
    }
    expect(
      existsSync(file),
      `no golden schema for ${name}; run with EFFERENT_UPDATE_GOLDEN=1 and review it`,
    ).toBe(true);
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });

  it('accepts valid inputs and rejects invalid ones', () => {
    for (const input of examples?.accepted ?? []) {
      const parsed = tool.inputSchema.safeParse(input);
      expect(parsed.success, `${name} should accept ${JSON.stringify(input)}: ${parsed.error?.message}`).toBe(
        true,
      );
    }
    for (const input of examples?.rejected ?? []) {
      expect(
        tool.inputSchema.safeParse(input).success,
        `${name} should reject ${JSON.stringify(input)}`,
      ).toBe(false);
    }
    expect(examples?.accepted.length ?? 0).toBeGreaterThan(0);
    expect(examples?.rejected.length ?? 0).toBeGreaterThan(0);
  });

  it('has a prompt and a provider-safe name', async () => {
    const prompt = await tool.prompt({ tools, isNonInteractive: true });
    expect(prompt.trim().length).toBeGreaterThan(20);
    expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tool.userFacingName().length).toBeGreaterThan(0);
  });

  it('declares its flags as the examples say', () => {
    const first = examples?.accepted[0];
    if (!examples || first === undefined) return;
    const input = tool.inputSchema.parse(first);
    expect({
      readOnly: tool.isReadOnly(input),
      concurrencySafe: tool.isConcurrencySafe(input),
      deferred: tool.shouldDefer,
      maxResultSizeChars: tool.maxResultSizeChars,
    }).toEqual(examples.flags);
  });

  it('never exposes internal fields to the model', () => {
    const properties = Object.keys(
      (toolInputJsonSchema(tool)['properties'] as Record<string, unknown>) ?? {},
    );
    expect(properties.filter((key) => key.startsWith('_'))).toEqual([]);
  });
});

describe('tool names', () => {
  it('are unique, aliases included', () => {
    const names = tools.flatMap((tool) => [tool.name, ...tool.aliases]);
    expect(new Set(names).size).toBe(names.length);
  });
});
