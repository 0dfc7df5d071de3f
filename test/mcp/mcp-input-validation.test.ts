import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { attachMcpToSession, McpManager } from '../../src/mcp/index.ts';
import { toProviderTools } from '../../src/registry/index.ts';

const script = join(import.meta.dirname, 'fixtures', 'schema-server.mjs');
let root: string;
let session: Session;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-validation-')));
  const manager = new McpManager([
    {
      name: 'schemas',
      scope: 'cli',
      origin: 'test',
      config: { type: 'stdio', command: process.execPath, args: [script], env: {} },
      status: 'enabled',
    },
  ]);
  await manager.start();
  session = await createSession({
    cwd: root,
    home: join(root, 'home'),
    trusted: false,
    extraTools: manager.tools,
    cli: { allowedTools: ['mcp__schemas'] },
  });
  attachMcpToSession(manager, session);
});
afterAll(async () => {
  await session?.dispose();
  await rm(root, { recursive: true, force: true });
});

async function drawsSoFar(): Promise<number> {
  return Number(toolResultText(await session.callTool('mcp__schemas__draws', {})).match(/\d+/)?.[0]);
}

describe('MCP arguments are checked against the server schema before the call', { timeout: 90_000 }, () => {
  it('refuses bad input with errors that name the parameter, and the server never sees it', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'The required parameter `shape` is missing.'],
      [
        { shape: { kind: 'circle', radius: 0 } },
        'The parameter `shape` does not match any of the allowed forms',
      ],
      [{ shape: { kind: 'square' } }, '"circle", "group"'],
      [{ shape: { kind: 'circle', radius: 1 }, color: 'red' }, 'Unexpected parameter `color`; remove it.'],
      [
        { shape: { kind: 'circle', radius: 1 }, labels: { Bad: 'x' } },
        'Unexpected parameter `labels.Bad`; remove it.',
      ],
      [
        { shape: { kind: 'circle', radius: 1 }, at: 'yesterday' },
        'The parameter `at` must match format "date-time".',
      ],
      [
        { shape: { kind: 'group', members: [{ name: 'a', children: [{ nickname: 'b' }] }] } },
        'members.0.children.0',
      ],
    ];
    for (const [input, expected] of cases) {
      const result = await session.callTool('mcp__schemas__draw', input);
      expect(result.isError, JSON.stringify(input)).toBe(true);
      const text = toolResultText(result);
      expect(text).toContain('InputValidationError: mcp__schemas__draw failed');
      expect(text, JSON.stringify(input)).toContain(expected);
    }
    expect(await drawsSoFar()).toBe(0);
  });

  it('passes valid input through unchanged', async () => {
    const input = {
      shape: { kind: 'group', members: [{ name: 'a', children: [{ name: 'b' }] }] },
      labels: { tone: 'warm' },
      at: '2026-12-01T10:00:00Z',
    };
    const result = await session.callTool('mcp__schemas__draw', input);
    expect(result.isError).toBeFalsy();
    expect(toolResultText(result)).toContain(JSON.stringify(input));
    expect(await drawsSoFar()).toBe(1);
  });

  it('compiles a tool schema once, not on every call', async () => {
    // Every ajv instance (efferent's and the SDK's) compiles through this one method.
    const { default: Ajv } = createRequire(import.meta.url)('ajv/dist/core.js') as {
      default: { prototype: { compile: (...args: unknown[]) => unknown } };
    };
    const good = { shape: { kind: 'circle', radius: 1 } };
    const bad = { shape: { kind: 'circle', radius: 0 } };
    // The first call may compile the schema (it is compiled when first needed).
    await session.callTool('mcp__schemas__draw', good);
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      for (let round = 0; round < 3; round++) {
        expect((await session.callTool('mcp__schemas__draw', good)).isError).toBeFalsy();
        expect((await session.callTool('mcp__schemas__draw', bad)).isError).toBe(true);
      }
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

  it('sends each provider a schema it accepts while the original stays the one enforced', async () => {
    const draw = session.tools.find((tool) => tool.name === 'mcp__schemas__draw');
    expect(draw).toBeDefined();
    if (!draw) return;
    const [gemini] = await toProviderTools([draw], 'gemini');
    const text = JSON.stringify(gemini);
    for (const keyword of ['$ref', '$defs', 'oneOf', 'patternProperties', 'additionalProperties', '"const"'])
      expect(text).not.toContain(keyword);
    const [anthropic] = await toProviderTools([draw], 'anthropic');
    expect(JSON.stringify(anthropic)).toContain('"$ref":"#/$defs/member"');
  });
});
