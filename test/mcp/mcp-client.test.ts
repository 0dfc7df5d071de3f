import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { toProviderTools } from '../../src/registry/index.ts';
import {
  attachMcpToSession,
  type ConfiguredMcpServer,
  type McpManagerOptions,
  McpManager,
  type McpServerConfig,
} from '../../src/mcp/index.ts';

const repo = resolve(import.meta.dirname, '..', '..');
const serverScript = (name: string) =>
  join(repo, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
const faultScript = join(import.meta.dirname, 'fixtures', 'fault-server.mjs');

function stdio(args: string[], env: Record<string, string> = {}): McpServerConfig {
  return { type: 'stdio', command: process.execPath, args, env };
}

function server(name: string, config: McpServerConfig): ConfiguredMcpServer {
  return { name, scope: 'cli', origin: 'test', config, status: 'enabled' };
}

let root: string;
const opened: Session[] = [];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-client-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((session) => session.dispose()));
});

async function open(
  servers: ConfiguredMcpServer[],
  options: { allow?: string[]; mcp?: McpManagerOptions } = {},
): Promise<{ session: Session; manager: McpManager }> {
  const manager = new McpManager(servers, options.mcp ?? {});
  await manager.start();
  const session = await createSession({
    cwd: root,
    home: join(root, 'home'),
    trusted: false,
    extraTools: manager.tools,
    cli: { allowedTools: options.allow ?? [] },
  });
  attachMcpToSession(manager, session);
  opened.push(session);
  return { session, manager };
}

/** Processes whose command line mentions `needle` (for leak checks). */
function processesMatching(needle: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Process group and session of a live process, from /proc. */
function procStat(pid: number): { group: number; session: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { group: Number(fields[2]), session: Number(fields[3]) };
}

describe('MCP client against the reference servers', { timeout: 90_000 }, () => {
  it('offers server-everything tools after the built-ins, with the JSON Schema passed through', async () => {
    const { session } = await open([server('everything', stdio([serverScript('everything'), 'stdio']))]);
    const names = session.tools.map((tool) => tool.name);
    const firstMcp = names.findIndex((name) => name.startsWith('mcp__'));
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    expect(names.slice(firstMcp).every((name) => name.startsWith('mcp__'))).toBe(true);
    expect(names.slice(0, firstMcp)).toContain('ListMcpResources');
    const sum = session.tools.find((tool) => tool.name === 'mcp__everything__get-sum');
    const [definition] = await toProviderTools(sum ? [sum] : [], 'anthropic');
    expect(definition).toMatchObject({
      input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    });
    expect(sum?.isReadOnly({})).toBe(true);
    expect(sum?.isConcurrencySafe({})).toBe(true);
  });

  it('asks before an MCP tool runs (refused headless) and runs it once a rule allows the server', async () => {
    const config = stdio([serverScript('everything'), 'stdio']);
    const { session: strict } = await open([server('everything', config)]);
    const refused = await strict.callTool('mcp__everything__echo', { message: 'hi' });
    expect(refused.isError).toBe(true);
    expect(toolResultText(refused)).toMatch(/needs approval|not allowed|approv/i);

    const { session } = await open([server('everything', config)], { allow: ['mcp__everything'] });
    const result = await session.callTool('mcp__everything__echo', { message: 'hello there' });
    expect(result.isError).toBeFalsy();
    const text = toolResultText(result);
    expect(text).toContain('hello there');
    expect(text).toMatch(/^<mcp-output server="everything" trust="untrusted">/);
  });

  it('maps images, resource links, structured content and progress', async () => {
    const { session } = await open([server('everything', stdio([serverScript('everything'), 'stdio']))], {
      allow: ['mcp__everything__*'],
    });
    const image = await session.callTool('mcp__everything__get-tiny-image', {});
    expect(Array.isArray(image.content)).toBe(true);
    const parts = image.content as Array<{ type: string; source?: { mediaType: string } }>;
    expect(parts.some((part) => part.type === 'image' && part.source?.mediaType === 'image/png')).toBe(true);

    const links = await session.callTool('mcp__everything__get-resource-links', { count: 2 });
    expect(toolResultText(links)).toMatch(/\[resource link \S+/);

    const structured = await session.callTool('mcp__everything__get-structured-content', {
      location: 'Chicago',
    });
    expect(structured.isError).toBeFalsy();
    expect(toolResultText(structured)).toMatch(/temperature/i);

    const progress: unknown[] = [];
    const long = await session.callTool(
      'mcp__everything__trigger-long-running-operation',
      { duration: 1, steps: 3 },
      { onProgress: (data) => progress.push(data) },
    );
    expect(long.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toMatchObject({ progress: expect.any(Number) });
  });

  it('lists and reads resources through ListMcpResources and ReadMcpResource (read-only, no rule needed)', async () => {
    const { session } = await open([server('everything', stdio([serverScript('everything'), 'stdio']))]);
    const listed = await session.callTool('ListMcpResources', { server: 'everything' });
    expect(listed.isError).toBeFalsy();
    const first = toolResultText(listed).split('\n')[0] ?? '';
    const { uri } = JSON.parse(first) as { uri: string };
    const read = await session.callTool('ReadMcpResource', { server: 'everything', uri });
    expect(read.isError).toBeFalsy();
    expect(toolResultText(read)).toContain(uri);
    const missing = await session.callTool('ReadMcpResource', { server: 'nope', uri });
    expect(toolResultText(missing)).toMatch(/no MCP server "nope"/);
  });

  it('offers elicitation only with a handler: the server question reaches it and the answer goes back', async () => {
    const config = stdio([serverScript('everything'), 'stdio']);
    const headless = await open([server('everything', config)]);
    expect(headless.session.tools.map((tool) => tool.name)).not.toContain(
      'mcp__everything__trigger-elicitation-request',
    );

    const asked: string[] = [];
    const { session } = await open([server('everything', config)], {
      allow: ['mcp__everything'],
      mcp: {
        elicit: async (serverName, request) => {
          asked.push(`${serverName}: ${request.message}`);
          return { action: 'decline' };
        },
      },
    });
    await expect
      .poll(() => session.tools.map((tool) => tool.name), { timeout: 5_000 })
      .toContain('mcp__everything__trigger-elicitation-request');
    const result = await session.callTool('mcp__everything__trigger-elicitation-request', {});
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^everything: /);
    expect(toolResultText(result)).toMatch(/decline/i);
  });

  it('works with server-filesystem and server-memory', async () => {
    const dir = join(root, 'files');
    await rm(dir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    await writeFile(join(dir, 'note.txt'), 'filesystem says hi\n');
    const { session } = await open(
      [
        server('fs', stdio([serverScript('filesystem'), dir])),
        server('memory', stdio([serverScript('memory')], { MEMORY_FILE_PATH: join(root, 'memory.jsonl') })),
      ],
      { allow: ['mcp__fs', 'mcp__memory'] },
    );
    const read = await session.callTool('mcp__fs__read_text_file', { path: join(dir, 'note.txt') });
    expect(toolResultText(read)).toContain('filesystem says hi');
    const outside = await session.callTool('mcp__fs__read_text_file', { path: '/etc/passwd' });
    expect(outside.isError).toBe(true);

    const created = await session.callTool('mcp__memory__create_entities', {
      entities: [{ name: 'efferent', entityType: 'project', observations: ['runs tools'] }],
    });
    expect(created.isError).toBeFalsy();
    const found = await session.callTool('mcp__memory__search_nodes', { query: 'efferent' });
    expect(toolResultText(found)).toContain('runs tools');
    expect(await readFile(join(root, 'memory.jsonl'), 'utf8')).toContain('efferent');
  });
});

describe('MCP client faults', { timeout: 90_000 }, () => {
  const fault = (...args: string[]) => stdio([faultScript, ...args]);
  let baseline = 0;
  beforeAll(() => {
    baseline = processesMatching(faultScript).length;
  });

  it('a server that never answers initialize, or starts too slowly, fails alone; the others work', async () => {
    const started = Date.now();
    const { session, manager } = await open(
      [
        server('silent', fault('--never-init')),
        server('slow', fault('--slow-start', '9000')),
        server('good', fault()),
        server('missing', { type: 'stdio', command: join(root, 'no-such-binary'), args: [], env: {} }),
      ],
      { allow: ['mcp__good'], mcp: { startupTimeoutMs: 4_000 } },
    );
    expect(Date.now() - started).toBeLessThan(8_000);
    const byName = Object.fromEntries(manager.connections.map((c) => [c.name, c.status]));
    expect(byName).toEqual({ silent: 'failed', slow: 'failed', good: 'connected', missing: 'failed' });
    expect(manager.failures.join('\n')).toMatch(/"silent" failed to start: .*MCP_TIMEOUT/);
    const result = await session.callTool('mcp__good__ok', {});
    expect(toolResultText(result)).toContain('ok');
  });

  it('a slow start within MCP_TIMEOUT connects', async () => {
    const { manager } = await open([server('slow', fault('--slow-start', '400'))], {
      mcp: { startupTimeoutMs: 5_000 },
    });
    expect(manager.connections[0]?.status).toBe('connected');
  });

  it('garbage on stdout is skipped; the server keeps answering', async () => {
    const { session } = await open([server('noisy', fault('--garbage'))], { allow: ['mcp__noisy'] });
    expect(toolResultText(await session.callTool('mcp__noisy__garbage', {}))).toContain('after garbage');
    expect(toolResultText(await session.callTool('mcp__noisy__ok', {}))).toContain('ok');
  });

  it('a crash mid-call is an error result, and the next call restarts the server', async () => {
    const { session, manager } = await open([server('crashy', fault())], { allow: ['mcp__crashy'] });
    const firstPid = toolResultText(await session.callTool('mcp__crashy__pid', {}));
    const crashed = await session.callTool('mcp__crashy__crash', {});
    expect(crashed.isError).toBe(true);
    expect(toolResultText(crashed)).toMatch(/crashy/);
    const secondPid = toolResultText(await session.callTool('mcp__crashy__pid', {}));
    expect(secondPid).toMatch(/\d+/);
    expect(secondPid).not.toBe(firstPid);
    expect(manager.connections[0]?.restarts).toBe(1);
  });

  it('stops restarting after three crashes', async () => {
    const { session } = await open([server('crashy', fault())], { allow: ['mcp__crashy'] });
    for (let i = 0; i < 4; i += 1) await session.callTool('mcp__crashy__crash', {});
    const after = await session.callTool('mcp__crashy__ok', {});
    expect(after.isError).toBe(true);
    expect(toolResultText(after)).toMatch(/not available/);
  });

  it('a hung call ends at MCP_TOOL_TIMEOUT with an error result; the server still answers', async () => {
    const { session } = await open([server('hangs', fault())], {
      allow: ['mcp__hangs'],
      mcp: { toolTimeoutMs: 500 },
    });
    const hung = await session.callTool('mcp__hangs__hang', {});
    expect(hung.isError).toBe(true);
    expect(toolResultText(hung)).toMatch(/timed out|timeout/i);
    expect(toolResultText(await session.callTool('mcp__hangs__ok', {}))).toContain('ok');
  });

  it('a 50 MB result stops that server with an error result; it restarts on the next call', async () => {
    const { session } = await open([server('big', fault())], { allow: ['mcp__big'] });
    const huge = await session.callTool('mcp__big__huge', {});
    expect(huge.isError).toBe(true);
    expect(toolResultText(await session.callTool('mcp__big__ok', {}))).toContain('ok');
  }, 90_000);

  it('a result above MAX_MCP_OUTPUT_TOKENS is persisted with a preview; isError results are errors', async () => {
    const warnings: string[] = [];
    const { session } = await open([server('big', fault())], {
      allow: ['mcp__big'],
      mcp: { warn: (text) => warnings.push(text) },
    });
    const huge = await session.callTool('mcp__big__large', {});
    expect(huge.isError).toBeFalsy();
    expect(toolResultText(huge)).toMatch(/^<persisted-output>/);
    expect(toolResultText(huge).length).toBeLessThan(10_000);
    expect(warnings.join('\n')).toMatch(/MAX_MCP_OUTPUT_TOKENS/);
    const failed = await session.callTool('mcp__big__fail', {});
    expect(failed.isError).toBe(true);
    expect(toolResultText(failed)).toContain('the widget is broken');
  }, 90_000);

  it('tools/list_changed appends the new tool after the existing pool', async () => {
    const { session } = await open([server('grows', fault())], { allow: ['mcp__grows'] });
    const before = session.tools.map((tool) => tool.name);
    expect(before).not.toContain('mcp__grows__extra');
    await session.callTool('mcp__grows__grow', {});
    await expect
      .poll(() => session.tools.map((tool) => tool.name), { timeout: 3_000 })
      .toContain('mcp__grows__extra');
    expect(session.tools.map((tool) => tool.name).slice(0, before.length)).toEqual(before);
    expect(toolResultText(await session.callTool('mcp__grows__extra', {}))).toContain('extra here');
  });

  it('aborting a call ends it at once and sends notifications/cancelled to the server', async () => {
    const log = join(root, 'cancelled.json');
    const { manager } = await open([server('slowpoke', fault('--cancel-log', log))]);
    const connection = manager.connections[0];
    const controller = new AbortController();
    const call = connection?.callTool('hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user interrupted')), 200);
    const started = Date.now();
    await expect(call).rejects.toThrow(/interrupted|abort/i);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect
      .poll(async () => readFile(log, 'utf8').catch(() => ''), { timeout: 3_000 })
      .toMatch(/requestId/);
    expect((await connection?.callTool('ok', {}))?.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('dispose kills each server process group, grandchildren included', async () => {
    const pidFile = join(root, 'grandchild.pid');
    const marker = `efferent-leak-check-${process.pid}`;
    const { session, manager } = await open([
      server('parent', stdio([faultScript, '--child', pidFile, marker])),
      server('other', stdio([serverScript('memory')], { MEMORY_FILE_PATH: join(root, 'm2.jsonl') })),
    ]);
    expect(manager.connections.every((c) => c.status === 'connected')).toBe(true);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    const serverPid = manager.connections[0]?.pid ?? 0;
    expect(processesMatching(marker).length).toBe(1);
    // The server leads its own process group, in efferent's session when perl can start it so
    // (no scheduler autogroup of its own), in a session of its own otherwise.
    const leader = procStat(serverPid);
    expect(leader.group).toBe(serverPid);
    expect(procStat(grandchild).group).toBe(serverPid);
    expect(leader.session).toBe(existsSync('/usr/bin/perl') ? procStat(process.pid).session : serverPid);
    await session.dispose();
    opened.splice(opened.indexOf(session), 1);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(() => alive(grandchild) || alive(serverPid), { timeout: 3_000 }).toBe(false);
    expect(processesMatching(marker)).toEqual([]);
  });

  it('leaves no server process behind after the fault tests (process count before/after)', async () => {
    // Every session above was disposed by afterEach; crashed, hung, garbage and oversized servers included.
    await expect.poll(() => processesMatching(faultScript).length, { timeout: 3_000 }).toBe(baseline);
  });
});
