import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Api from '../../src/index.ts';

/**
 * The library bundle (dist/bundle/, minified, with source maps) gives efferent's sources a `z` holding only the zod members they use (the rest of
 * zod is left out of the bundle). Everything zod does for efferent must come out the same as with
 * the whole zod package the sources import: the tools' JSON schemas, the issues of bad inputs, and
 * settings files read leniently (zod schemas walked member by member).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundleEntry = join(root, 'dist', 'bundle', 'index.js');
let source: typeof Api;
let bundle: typeof Api;
let scratch = '';

beforeAll(async () => {
  if (!existsSync(bundleEntry)) execFileSync('npm', ['run', 'build'], { cwd: root });
  source = await import('../../src/index.ts');
  bundle = (await import(pathToFileURL(bundleEntry).href)) as typeof Api;
  scratch = await mkdtemp(join(tmpdir(), 'efferent-bundle-zod-'));
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const everyTool = { powershell: true, repl: true, todoWrite: true };

/** Inputs that break each tool's schema in different ways: missing, extra and mistyped fields. */
function badInputs(schema: Record<string, unknown>): unknown[] {
  const properties = Object.keys((schema['properties'] as Record<string, unknown> | undefined) ?? {});
  return [
    {},
    null,
    'text',
    { unexpected_field: true },
    ...properties.flatMap((name) => [{ [name]: 12345 }, { [name]: 'x' }, { [name]: [{}] }, { [name]: -1 }]),
  ];
}

describe('the library bundle with the zod members efferent uses', () => {
  it('gives every built-in tool the same JSON schema and the same issues for bad input', () => {
    const sourceTools = source.getAllBaseTools(everyTool);
    const bundleTools = bundle.getAllBaseTools(everyTool);
    expect(bundleTools.map((tool) => tool.name)).toEqual(sourceTools.map((tool) => tool.name));
    expect(sourceTools.length).toBeGreaterThan(10);
    sourceTools.forEach((tool, index) => {
      const bundled = bundleTools[index];
      if (!bundled) throw new Error(`${tool.name} is missing from the bundle.`);
      const schema = source.toolInputJsonSchema(tool);
      expect(bundle.toolInputJsonSchema(bundled), tool.name).toEqual(schema);
      for (const input of badInputs(schema)) {
        const expected = tool.inputSchema.safeParse(input);
        const actual = bundled.inputSchema.safeParse(input);
        expect(actual.success, `${tool.name} ${JSON.stringify(input)}`).toBe(expected.success);
        expect(actual.error?.issues, `${tool.name} ${JSON.stringify(input)}`).toEqual(expected.error?.issues);
      }
    });
  });

  it('reads a settings file with wrong values into the same settings and warnings', async () => {
    const cwd = join(scratch, 'project');
    const home = join(scratch, 'home');
    mkdirSync(join(cwd, '.efferent'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(cwd, '.efferent', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Read', 5, 'Bash(git status)'], deny: 'Write', defaultMode: 'sometimes' },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }], Unknown: [] },
        sandbox: { enabled: 'yes', network: { allowedDomains: ['example.com', 7] } },
        env: { A: 1, B: 'b' },
        notASetting: true,
      }),
    );
    const options = { cwd, home, trusted: true, managedSettingsPath: join(scratch, 'managed.json') };
    const expected = await source.loadSettings(options);
    expect(expected.warnings.length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(await bundle.loadSettings(options)))).toEqual(
      JSON.parse(JSON.stringify(expected)),
    );
  });

  it('names efferent functions in stack traces, and src/ lines with --enable-source-maps', () => {
    const script = `const { createSession } = await import(${JSON.stringify(pathToFileURL(bundleEntry).href)});
try { await createSession({ cwd: ${JSON.stringify(join(scratch, 'missing'))} }); } catch (error) { console.log(error.stack); }`;
    const plain = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(plain.stdout).toContain('the working directory');
    expect(plain.stdout).toMatch(/at checkWorkingDirectory \(file:.*dist\/bundle\/index\.js:\d+:\d+\)/);
    const mapped = spawnSync(
      process.execPath,
      ['--enable-source-maps', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
      },
    );
    expect(mapped.stdout).toMatch(/at checkWorkingDirectory \(.*src\/agent\/session-setup\.ts:\d+:\d+\)/);
  });
});
