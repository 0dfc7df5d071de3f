import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildTool,
  createInputValidator,
  type JsonSchema,
  toAnthropicSchema,
  toGeminiSchema,
  toOpenAISchema,
  toOpenAIStrictSchema,
} from '../../src/core/index.ts';
import { normalizeJsonSchema } from '../../src/core/schema-normalize.ts';
import {
  type AnthropicToolDefinition,
  assembleToolPool,
  type GeminiToolDefinition,
  getAllBaseTools,
  type OpenAIToolDefinition,
  toProviderTools,
} from '../../src/registry/index.ts';
import { sampleInstances } from './instances.ts';
import {
  anthropicViolations,
  geminiAsJsonSchema,
  geminiViolations,
  openAIStrictViolations,
  openAIViolations,
} from './subsets.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'fixtures', 'mcp-schemas');
const golden = join(here, '..', 'golden', 'provider-schemas');
const update = process.env['EFFERENT_UPDATE_GOLDEN'] === '1';

interface CorpusEntry {
  id: string;
  package: string;
  version: string;
  schema: JsonSchema;
}

const corpus: CorpusEntry[] = readdirSync(fixtures)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .flatMap((file) => {
    const data = JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as {
      package: string;
      version: string;
      tools: Array<{ name: string; inputSchema: JsonSchema }>;
    };
    return data.tools.map((tool) => ({
      id: `${data.package}:${tool.name}`,
      package: data.package,
      version: data.version,
      schema: tool.inputSchema,
    }));
  });
const real = corpus.filter((entry) => entry.package !== '(hand-written)');
const byName = (name: string) => {
  const entry = corpus.find((candidate) => candidate.id.endsWith(`:${name}`));
  if (!entry) throw new Error(`no corpus schema ${name}`);
  return entry.schema;
};

const addFormats = formatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, logger: false, allowUnionTypes: true }));
const accepts = (schema: unknown) => ajv.compile(schema as JsonSchema);

/** What Gemini is sent: the declaration has no parameters when the schema has no properties. */
function geminiParameters(schema: JsonSchema): JsonSchema | undefined {
  const parameters = toGeminiSchema(schema);
  return Object.keys((parameters['properties'] as object) ?? {}).length > 0 ? parameters : undefined;
}

describe('the MCP schema corpus', () => {
  it('holds at least 40 real schemas from at least 10 published servers, each with its version', () => {
    expect(real.length).toBeGreaterThanOrEqual(40);
    expect(new Set(real.map((entry) => entry.package)).size).toBeGreaterThanOrEqual(10);
    for (const entry of real) expect(entry.version, entry.id).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('covers the keywords that are hard to emit', () => {
    const text = corpus.map((entry) => JSON.stringify(entry.schema)).join('\n');
    for (const keyword of [
      '"$ref"',
      '"$defs"',
      '"definitions"',
      '"oneOf"',
      '"anyOf"',
      '"allOf"',
      '"patternProperties"',
      '"additionalProperties":{',
      '"const"',
      '"format"',
      '"prefixItems"',
      '"items":[',
      '"null"',
      '"type":["',
      '"$ref":"#"',
      '"discriminator"',
      '"if"',
      '"not"',
      '"dependentRequired"',
      '"exclusiveMinimum":true',
    ]) {
      expect(text, keyword).toContain(keyword);
    }
  });

  it('compiles every schema for validation before the call', () => {
    for (const entry of corpus) {
      const validate = createInputValidator(entry.schema);
      validate({});
      expect(validate.compileError, entry.id).toBeUndefined();
    }
  });
});

describe.each(corpus)('$id', (entry) => {
  it('emits a schema each provider accepts', () => {
    expect(anthropicViolations(toAnthropicSchema(entry.schema))).toEqual([]);
    expect(openAIViolations(toOpenAISchema(entry.schema))).toEqual([]);
    const strict = toOpenAIStrictSchema(entry.schema);
    if (strict.ok) expect(openAIStrictViolations(strict.schema)).toEqual([]);
    expect(geminiViolations(geminiParameters(entry.schema))).toEqual([]);
  });

  it('never rejects an input the original schema accepts', () => {
    const original = createInputValidator(entry.schema);
    const seed = [...entry.id].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) | 0, 7);
    // Sampled from the 2020-12 reading (OpenAPI `nullable`, draft-7 tuples), judged by the original.
    const valid = sampleInstances(normalizeJsonSchema(entry.schema), 60, seed).filter(
      (instance) => instance !== undefined && original(instance).length === 0,
    );
    const strict = toOpenAIStrictSchema(entry.schema);
    const emitted: Array<[string, unknown]> = [
      ['anthropic', toAnthropicSchema(entry.schema)],
      ['openai', toOpenAISchema(entry.schema)],
      ['gemini', geminiAsJsonSchema(geminiParameters(entry.schema) ?? { type: 'object' })],
      ...(strict.ok ? [['openai-strict', strict.schema] as [string, unknown]] : []),
    ];
    for (const [provider, schema] of emitted) {
      const check = accepts(schema);
      for (const instance of valid) {
        expect(
          check(instance),
          `${provider} rejects ${JSON.stringify(instance)}: ${JSON.stringify(check.errors)}`,
        ).toBe(true);
      }
    }
    // The sample is not vacuous: (nearly) every schema yields valid inputs to check.
    if (!['lookaround_pattern', 'conditionals'].some((name) => entry.id.endsWith(`:${name}`)))
      expect(valid.length, 'valid samples').toBeGreaterThan(0);
  });
});

describe('the built-in tools', () => {
  it('are sent to every provider in a form it accepts', async () => {
    const pool = assembleToolPool({ builtIns: getAllBaseTools() });
    for (const definition of (await toProviderTools(pool, 'anthropic')) as AnthropicToolDefinition[])
      expect(anthropicViolations(definition.input_schema), definition.name).toEqual([]);
    for (const { function: fn } of (await toProviderTools(pool, 'openai')) as OpenAIToolDefinition[]) {
      const violations = fn.strict ? openAIStrictViolations(fn.parameters) : openAIViolations(fn.parameters);
      expect(violations, fn.name).toEqual([]);
    }
    for (const definition of (await toProviderTools(pool, 'gemini')) as GeminiToolDefinition[])
      expect(geminiViolations(definition.parameters), definition.name).toEqual([]);
  });
});

describe('OpenAI strict mode', () => {
  it('goes strict for a closed schema with every property required', () => {
    const emission = toOpenAIStrictSchema(byName('strict_ready'));
    expect(emission.ok).toBe(true);
  });

  it('stays non-strict, with the reason, where strict mode would reject valid calls or break a limit', () => {
    const reasons = Object.fromEntries(
      ['huge_enum', 'deep_nesting', 'labels_map', 'API-post-search', 'create_entities'].map((name) => {
        const emission = toOpenAIStrictSchema(byName(name));
        return [name, emission.ok ? 'strict' : emission.reason];
      }),
    );
    expect(reasons['huge_enum']).toMatch(/enum of 300 values is longer than 15000 characters/);
    expect(reasons['deep_nesting']).toMatch(/deeper than 10 levels/);
    expect(reasons['labels_map']).toMatch(/patternProperties|accepts more properties/);
    expect(reasons['API-post-search']).toMatch(/optional|accepts more properties/);
    expect(reasons['create_entities']).not.toBe('strict');
  });

  it('is used for a tool only when the tool asks for it', async () => {
    const schema = byName('strict_ready');
    const make = (strict: boolean) =>
      buildTool({
        name: strict ? 'StrictOne' : 'PlainOne',
        strict,
        inputSchema: z.record(z.string(), z.unknown()),
        inputJSONSchema: schema,
        prompt: 'p',
        async call() {
          return { data: '' };
        },
      });
    const [strictTool, plainTool] = await toProviderTools([make(true), make(false)], 'openai');
    expect(strictTool).toMatchObject({ function: { strict: true } });
    expect(JSON.stringify(plainTool)).not.toContain('"strict"');
  });
});

describe('Gemini declarations', () => {
  it('leave out parameters for a tool that has none', async () => {
    const tool = buildTool({
      name: 'Ping',
      inputSchema: z.record(z.string(), z.unknown()),
      inputJSONSchema: byName('no_parameters'),
      prompt: 'p',
      async call() {
        return { data: '' };
      },
    });
    const [definition] = (await toProviderTools([tool], 'gemini')) as GeminiToolDefinition[];
    expect(definition).toEqual({ name: 'Ping', description: 'p' });
  });

  it('cut recursion and keep the dropped constraints in the description', () => {
    const tree = toGeminiSchema(byName('recursive_tree'));
    expect(JSON.stringify(tree)).toContain('recursive structure cut here');
    const password = (
      toGeminiSchema(byName('lookaround_pattern'))['properties'] as Record<string, JsonSchema>
    )['password'];
    expect(password?.['pattern']).toBeUndefined();
    expect(password?.['description']).toContain('pattern: ^(?=');
  });
});

describe('golden emissions', () => {
  const cases = [
    'recursive_tree',
    'discriminated_shape',
    'root_one_of',
    'tuple_draft7',
    'null_unions',
    'API-post-search',
  ];
  it.each(cases)('%s', (name) => {
    const schema = byName(name);
    const strict = toOpenAIStrictSchema(schema);
    const actual = `${JSON.stringify(
      {
        anthropic: toAnthropicSchema(schema),
        openai: toOpenAISchema(schema),
        openaiStrict: strict.ok ? strict.schema : { notStrict: strict.reason },
        gemini: geminiParameters(schema) ?? null,
      },
      null,
      2,
    )}\n`;
    const file = join(golden, `${name}.json`);
    if (update) {
      mkdirSync(golden, { recursive: true });
      writeFileSync(file, actual);
    }
    expect(
      existsSync(file),
      `no golden file for ${name}; run with EFFERENT_UPDATE_GOLDEN=1 and review it`,
    ).toBe(true);
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });
});
