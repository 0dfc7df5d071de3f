import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, decideCall, type Session } from '../../src/agent/index.ts';
import { type AnyTool, buildTool, toolResultText } from '../../src/core/index.ts';

/** A program's WebSearch tool asks by default; rules and modes decide as for Claude Code's. */

let root: string;
let session: Session | undefined;
let searches: string[];
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-websearch-')));
  await mkdir(join(root, 'home', '.efferent'), { recursive: true });
  await mkdir(join(root, 'project'));
  searches = [];
});
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await rm(root, { recursive: true, force: true });
});

function searchTool(name: string, readOnly: boolean): AnyTool {
  return buildTool({
    name,
    description: () => 'Searches the web.',
    inputSchema: z.strictObject({ query: z.string() }),
    isReadOnly: () => readOnly,
    prompt: async () => 'Searches the web.',
    call: async (input: { query: string }) => {
      searches.push(input.query);
      return { data: `results for ${input.query}` };
    },
  }) as unknown as AnyTool;
}

async function open(
  mode: 'default' | 'plan' | 'acceptEdits' | 'bypassPermissions',
  allow: string[],
  readOnly = true,
  answer?: 'allow-once' | 'deny',
) {
  await writeFile(
    join(root, 'home', '.efferent', 'settings.json'),
    JSON.stringify({ permissions: { allow } }),
  );
  session = await createSession({
    cwd: join(root, 'project'),
    home: join(root, 'home'),
    sessionDir: join(root, 'session'),
    managedSettingsPath: join(root, 'no-policy.json'),
    permissionMode: mode,
    extraTools: [searchTool('WebSearch', readOnly), searchTool('DocsLookup', readOnly)],
    ...(answer ? { askUser: async () => ({ choice: answer }) } : {}),
  });
  return session;
}

describe('WebSearch asks by default', () => {
  it.each([
    ['default', [], true, 'ask', 'allow'],
    ['acceptEdits', [], true, 'ask', 'allow'],
    ['default', ['WebSearch'], true, 'allow', 'allow'],
    ['plan', [], true, 'ask', 'allow'],
    ['plan', ['WebSearch'], true, 'allow', 'allow'],
    ['plan', ['WebSearch'], false, 'ask', 'ask'],
    ['bypassPermissions', [], true, 'allow', 'allow'],
  ] as const)(
    '%s mode, allow %j, read-only %s: WebSearch %s (another read-only tool %s)',
    async (mode, allow, readOnly, expected, other) => {
      const current = await open(mode, [...allow], readOnly);
      expect((await decideCall(current, 'WebSearch', { query: 'q' })).behavior).toBe(expected);
      expect((await decideCall(current, 'DocsLookup', { query: 'q' })).behavior).toBe(other);
    },
  );

  it('a deny rule still wins: the tool is taken from the pool', async () => {
    const current = await open('default', []);
    await current.dispose();
    await writeFile(
      join(root, 'home', '.efferent', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['WebSearch'] } }),
    );
    session = await createSession({
      cwd: join(root, 'project'),
      home: join(root, 'home'),
      managedSettingsPath: join(root, 'no-policy.json'),
      extraTools: [searchTool('WebSearch', true)],
    });
    expect(session.tools.map((tool) => tool.name)).not.toContain('WebSearch');
  });

  it('the question reaches the person, whose answer decides whether the search runs', async () => {
    const denied = await open('default', [], true, 'deny');
    const refused = await denied.callTool('WebSearch', { query: 'secret plans' });
    expect(refused.isError).toBe(true);
    expect(searches).toEqual([]);
    await denied.dispose();
    const approved = await open('default', [], true, 'allow-once');
    const ran = await approved.callTool('WebSearch', { query: 'public docs' });
    expect(toolResultText(ran)).toBe('results for public docs');
    expect(searches).toEqual(['public docs']);
  });
});
