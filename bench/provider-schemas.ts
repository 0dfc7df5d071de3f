/**
 * Provider schema emission over the MCP schema corpus (test/fixtures/mcp-schemas), per provider:
 * microseconds per schema, and the emitted size against the original (characters the model reads);
 * and the cost of checking one input against the original schema before a call (ajv, compiled once).
 * `npm run bench -- provider-schemas [--json]`
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  createInputValidator,
  type JsonSchema,
  toAnthropicSchema,
  toGeminiSchema,
  toOpenAISchema,
  toOpenAIStrictSchema,
} from '../src/core/index.ts';

const json = process.argv.includes('--json');
const dir = resolve(import.meta.dirname, '..', 'test', 'fixtures', 'mcp-schemas');
const schemas: JsonSchema[] = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .flatMap((file) =>
    (
      JSON.parse(readFileSync(join(dir, file), 'utf8')) as { tools: Array<{ inputSchema: JsonSchema }> }
    ).tools.map((tool) => tool.inputSchema),
  );
const originalSize = schemas.reduce((sum, schema) => sum + JSON.stringify(schema).length, 0);
const rounds = Number(process.env['BENCH_SCHEMA_ROUNDS'] ?? 20);

const emitters: Record<string, (schema: JsonSchema) => unknown> = {
  anthropic: toAnthropicSchema,
  openai: toOpenAISchema,
  'openai-strict': (schema) => {
    const emission = toOpenAIStrictSchema(schema);
    return emission.ok ? emission.schema : toOpenAISchema(schema);
  },
  gemini: toGeminiSchema,
};

const rows: Array<{ provider: string; microsPerSchema: number; sizeRatio: number }> = [];
for (const [provider, emit] of Object.entries(emitters)) {
  for (const schema of schemas) emit(schema);
  const started = performance.now();
  let size = 0;
  for (let round = 0; round < rounds; round++) {
    for (const schema of schemas) {
      const out = emit(schema);
      if (round === 0) size += JSON.stringify(out).length;
    }
  }
  const micros = ((performance.now() - started) * 1000) / (rounds * schemas.length);
  rows.push({
    provider,
    microsPerSchema: Math.round(micros),
    sizeRatio: Number((size / originalSize).toFixed(3)),
  });
}

const strictCount = schemas.filter((schema) => toOpenAIStrictSchema(schema).ok).length;
const validators = schemas.map((schema) => createInputValidator(schema));
for (const validate of validators) validate({});
const checks = 200;
const started = performance.now();
for (let round = 0; round < checks; round++) for (const validate of validators) validate({});
const microsPerCheck = ((performance.now() - started) * 1000) / (checks * validators.length);

if (json) {
  process.stdout.write(
    `${JSON.stringify({ schemas: schemas.length, originalSize, rows, strictCount, microsPerCheck })}\n`,
  );
} else {
  process.stdout.write(`${schemas.length} schemas, ${originalSize} characters as the servers list them\n`);
  process.stdout.write('provider        µs/schema  size vs original\n');
  for (const row of rows) {
    process.stdout.write(
      `${row.provider.padEnd(15)} ${String(row.microsPerSchema).padStart(9)}  ${row.sizeRatio.toFixed(3)}\n`,
    );
  }
  process.stdout.write(`strict-eligible (if the tool asks): ${strictCount}/${schemas.length}\n`);
  process.stdout.write(`input check before a call: ${microsPerCheck.toFixed(1)} µs per input (compiled)\n`);
}
