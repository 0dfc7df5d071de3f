import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = resolve(import.meta.dirname, '../../bin/efferent.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-startup-modules-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Preloaded into the CLI's process: lists every package module it loaded (ES modules through a
 * loader hook, CommonJS ones from the require cache) on stderr, one `LOADED <path>` line each.
 */
const hook = join(work, 'loader-hook.mjs');
writeFileSync(
  hook,
  `export async function load(url, context, next) {
  if (url.includes('/node_modules/')) process.stderr.write('LOADED ' + url + '\\n');
  return next(url, context);
}\n`,
);
const preload = join(work, 'preload.mjs');
writeFileSync(
  preload,
  `import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hook).href)});
const require = createRequire(import.meta.url);
process.on('exit', () => {
  for (const path of Object.keys(require.cache)) if (path.includes('/node_modules/')) process.stderr.write('LOADED ' + path + '\\n');
});\n`,
);

/** The packages a CLI command loaded (names such as `@modelcontextprotocol/sdk`), and its stdout. */
function packagesLoadedBy(args: string[]): { packages: Set<string>; stdout: string } {
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, bin, ...args], {
    cwd: work,
    env: { ...process.env, HOME: work, EFFERENT_HOME: join(work, '.efferent') },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  const packages = new Set<string>();
  for (const line of result.stderr.split('\n')) {
    const path = /^LOADED .*\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(line)?.[1];
    if (path) packages.add(path);
  }
  return { packages, stdout: result.stdout };
}

describe('what a short CLI command loads', { timeout: 180_000 }, () => {
  it('`call Think` loads neither the shell grammar, the MCP SDK, OpenTelemetry nor a provider SDK', () => {
    const { packages, stdout } = packagesLoadedBy(['call', 'Think', '{"thought":"x"}', '--cwd', work]);
    expect(stdout).toContain('Thought recorded');
    for (const heavy of [
      'web-tree-sitter',
      '@modelcontextprotocol/sdk',
      '@opentelemetry/api',
      'openai',
      '@anthropic-ai/sdk',
      'sharp',
      'ajv',
    ])
      expect(packages, `${heavy} was loaded`).not.toContain(heavy);
  });

  it('`check Read` does not load the shell grammar', () => {
    const { packages, stdout } = packagesLoadedBy([
      'check',
      'Read',
      '{"file_path":"notes.txt"}',
      '--cwd',
      work,
    ]);
    expect(stdout).toContain('Decision: allow');
    expect(packages).not.toContain('web-tree-sitter');
  });

  it('`call Bash` still analyses its command: a read-only pipeline runs without asking', () => {
    writeFileSync(join(work, 'notes.txt'), 'x\n');
    const { packages, stdout } = packagesLoadedBy([
      'call',
      'Bash',
      '{"command":"ls | grep notes"}',
      '--cwd',
      work,
    ]);
    expect(stdout).toContain('notes.txt');
    expect(packages).toContain('web-tree-sitter');
  });

  it('`check Bash` loads the shell grammar, and still not the MCP SDK', () => {
    const { packages, stdout } = packagesLoadedBy([
      'check',
      'Bash',
      '{"command":"git status"}',
      '--cwd',
      work,
    ]);
    expect(stdout).toContain('Decision: allow');
    expect(packages).toContain('web-tree-sitter');
    expect(packages).not.toContain('@modelcontextprotocol/sdk');
  });
});
