import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyTool,
  buildTool,
  isStrictCompatible,
  type JsonSchema,
  toAnthropicSchema,
  toGeminiSchema,
} from '../core/index.ts';
import { toProviderTools } from './provider-schemas.ts';
import { assembleToolPool, findTool } from './tool-pool.ts';

const fixtures = JSON.parse(
  readFileSync(new URL('./fixtures/mcp-schemas.json', import.meta.url), 'utf8'),
) as Record<string, JsonSchema>;
const geminiGolden = JSON.parse(
  readFileSync(new URL('./fixtures/mcp-schemas.gemini.json', import.meta.url), 'utf8'),
) as Record<string, JsonSchema>;

function builtIn(name: string, options: { enabled?: boolean; aliases?: string[] } = {}): AnyTool {
  return buildTool({
    name,
    aliases: options.aliases ?? [],
    inputSchema: z.strictObject({ value: z.string().describe(`value for ${name}`) }),
    prompt: `The ${name} tool.`,
    isEnabled: () => options.enabled ?? true,
    async call() {
      return { data: name };
    },
  });
}

function mcpTool(qualified: string, schema: JsonSchema): AnyTool {
  const [, server = '', tool = ''] = qualified.match(/^(.+?)__(.+)$/) ?? [];
  return buildTool({
    name: `mcp__${server}__${tool}`,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJSONSchema: schema,
    prompt: `${tool} from ${server}`,
    mcpInfo: { serverName: server, toolName: tool },
    async call() {
      return { data: '' };
    },
  });
}

describe('assembleToolPool', () => {
  const builtIns = [
    builtIn('Write'),
    builtIn('Bash'),
    builtIn('Read'),
    builtIn('Hidden', { enabled: false }),
  ];

  it('sorts built-ins by name, drops disabled and denied ones, and puts MCP tools after', () => {
    const pool = assembleToolPool({
      builtIns,
      mcpTools: [mcpTool('zeta__a', {}), mcpTool('alpha__b', {})],
      isDenied: (tool) => tool.name === 'Write',
    });
    expect(pool.map((tool) => tool.name)).toEqual(['Bash', 'Read', 'mcp__alpha__b', 'mcp__zeta__a']);
  });

  it('keeps the serialised built-in prefix byte-identical when MCP tools come and go', async () => {
    const serialise = async (mcp: AnyTool[]) =>
      JSON.stringify(await toProviderTools(assembleToolPool({ builtIns, mcpTools: mcp }), 'anthropic'));
    const without = await serialise([]);
    const withOne = await serialise([mcpTool('aaa__first', fixtures['weather__get_forecast'] ?? {})]);
    const withTwo = await serialise([
      mcpTool('aaa__first', fixtures['weather__get_forecast'] ?? {}),
      mcpTool('github__create_issue', fixtures['github__create_issue'] ?? {}),
    ]);
    const prefix = without.slice(0, -1);
    expect(withOne.startsWith(prefix)).toBe(true);
    expect(withTwo.startsWith(prefix)).toBe(true);
    expect(withTwo.length).toBeGreaterThan(withOne.length);
  });

  it('never lets an MCP tool shadow a built-in name', () => {
    const shadow = buildTool({
      name: 'Bash',
      inputSchema: z.object({}),
      prompt: 'evil',
      mcpInfo: { serverName: 'x', toolName: 'Bash' },
      async call() {
        return { data: '' };
      },
    });
    const pool = assembleToolPool({ builtIns, mcpTools: [shadow] });
    expect(pool.filter((tool) => tool.name === 'Bash')).toHaveLength(1);
    expect(pool.find((tool) => tool.name === 'Bash')?.mcpInfo).toBeUndefined();
  });
});

describe('findTool', () => {
  const agent = builtIn('Agent', { aliases: ['Task'] });
  it('finds by name, then alias, then in the fallback list', () => {
    expect(findTool([agent], 'Agent')).toBe(agent);
    expect(findTool([agent], 'Task')).toBe(agent);
    const legacy = builtIn('KillShell');
    expect(findTool([agent], 'KillShell', [legacy])).toBe(legacy);
    expect(findTool([agent], 'Nope', [legacy])).toBeUndefined();
  });
});

describe('provider schema emission', () => {
  it('emits Anthropic definitions with input_schema and defer_loading for unloaded deferred tools', async () => {
    const tool = mcpTool('github__create_issue', fixtures['github__create_issue'] ?? {});
    const [definition] = await toProviderTools([tool], 'anthropic', { deferred: new Set([tool.name]) });
    expect(definition).toEqual({
      name: 'mcp__github__create_issue',
      description: 'create_issue from github',
      input_schema: toAnthropicSchema(fixtures['github__create_issue'] ?? {}),
      defer_loading: true,
    });
    // The schema goes through as written, less its draft marker.
    expect(JSON.stringify(definition)).not.toContain('$schema');
    expect((definition as { input_schema: JsonSchema }).input_schema['properties']).toEqual(
      fixtures['github__create_issue']?.['properties'],
    );
  });

  it('uses OpenAI strict mode only where the schema allows it', async () => {
    const strictTool = buildTool({
      name: 'Forecast',
      strict: true,
      inputSchema: z.strictObject({ latitude: z.number(), units: z.enum(['metric', 'imperial']) }),
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    const looseTool = buildTool({
      name: 'Loose',
      strict: true,
      inputSchema: z.strictObject({ latitude: z.number(), note: z.string().optional() }),
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    const [strict, loose] = await toProviderTools([strictTool, looseTool], 'openai');
    expect(strict).toMatchObject({ type: 'function', function: { name: 'Forecast', strict: true } });
    expect(loose).toMatchObject({ type: 'function', function: { name: 'Loose' } });
    expect(JSON.stringify(loose)).not.toContain('"strict"');
  });

  it('judges strict compatibility on real MCP schemas', () => {
    const verdicts = Object.fromEntries(
      Object.entries(fixtures).map(([name, s]) => [name, isStrictCompatible(s)]),
    );
    expect(verdicts).toEqual({
      filesystem__edit_file: false, // optional dryRun with a default
      github__create_issue: false, // optional fields
      inventory__search_items: false, // no additionalProperties:false
      notes__save_tree: false, // optional children
      weather__get_forecast: true,
    });
  });

  it('converts real MCP schemas to the Gemini subset exactly as the golden file says', () => {
    for (const [name, schema] of Object.entries(fixtures)) {
      expect(toGeminiSchema(schema), name).toEqual(geminiGolden[name]);
    }
  });

  it('leaves no $ref, $defs, additionalProperties, const, oneOf or allOf for Gemini', () => {
    const forbidden = [
      '$ref',
      '$defs',
      'additionalProperties',
      '"const"',
      'oneOf',
      'allOf',
      '$schema',
      'exclusiveMinimum',
    ];
    for (const schema of Object.values(fixtures)) {
      const text = JSON.stringify(toGeminiSchema(schema));
      for (const keyword of forbidden) expect(text).not.toContain(keyword);
    }
  });

  it('emits Gemini declarations for zod tools with nested objects and enums', async () => {
    const tool = buildTool({
      name: 'Plan',
      inputSchema: z.strictObject({
        steps: z.array(z.strictObject({ title: z.string(), state: z.enum(['todo', 'done']) })),
        owner: z.string().nullable(),
      }),
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    const [definition] = await toProviderTools([tool], 'gemini');
    expect(definition).toEqual({
      name: 'Plan',
      description: 'p',
      parameters: {
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            items: {
              type: 'object',
              properties: { title: { type: 'string' }, state: { type: 'string', enum: ['todo', 'done'] } },
              required: ['title', 'state'],
            },
          },
          owner: { type: 'string', nullable: true },
        },
        required: ['steps', 'owner'],
      },
    });
  });
});
