import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/agent/index.ts';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.ts';

const repo = resolve(import.meta.dirname, '..', '..');
let root: string;
let project: string;
let home: string;
const clients: Client[] = [];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-serve-')));
  project = join(root, 'project');
  home = join(root, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(project, 'hello.txt'), 'hello from efferent\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function stdioClient(args: string[], capabilities: Record<string, unknown> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repo, 'bin', 'efferent.js'), 'mcp', 'serve', '--cwd', project, '--untrusted', ...args],
    env: { PATH: process.env['PATH'] ?? '', HOME: home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const text = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('\n');

describe('efferent mcp serve over stdio', () => {
  it('lists the pool with annotations from the tool contract, and --tools serves a subset', async () => {
    const client = await stdioClient([]);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit', 'Grep', 'Glob']));
    const read = tools.find((tool) => tool.name === 'Read');
    expect(read?.annotations?.readOnlyHint).toBe(true);
    expect(read?.inputSchema).toMatchObject({
      type: 'object',
      properties: { file_path: { type: 'string' } },
    });
    expect(tools.find((tool) => tool.name === 'Write')?.annotations?.readOnlyHint).toBe(false);

    const subset = await stdioClient(['--tools', 'Read,Grep,Glob']);
    expect((await subset.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'Glob',
      'Grep',
      'Read',
    ]);
    const outside = await subset.callTool({ name: 'Bash', arguments: { command: 'echo hi' } });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/does not serve a tool named "Bash"/);
  }, 60_000);

  it('runs calls through the permission engine: reads run, asks are denied with the rule to add', async () => {
    const client = await stdioClient([]);
    const read = await client.callTool({
      name: 'Read',
      arguments: { file_path: join(project, 'hello.txt') },
    });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('hello from efferent');

    const write = await client.callTool({
      name: 'Write',
      arguments: { file_path: join(project, 'new.txt'), content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/cannot be asked .*add "Edit\(.+\)" to permissions\.allow/);
    await expect(readFile(join(project, 'new.txt'), 'utf8')).rejects.toThrow();

    const denied = await client.callTool({
      name: 'Bash',
      arguments: { command: `rm -rf ${project}/hello.txt` },
    });
    expect(denied.isError).toBe(true);
    expect(await readFile(join(project, 'hello.txt'), 'utf8')).toContain('hello');
  }, 60_000);

  it('asks an elicitation-capable client and runs the call once it allows', async () => {
    const client = await stdioClient([], { elicitation: {} });
    const questions: string[] = [];
    let answer: 'allow' | 'deny' = 'deny';
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: 'accept', content: { decision: answer } };
    });
    const target = join(project, 'elicited.txt');
    const refused = await client.callTool({ name: 'Write', arguments: { file_path: target, content: 'no' } });
    expect(refused.isError).toBe(true);
    answer = 'allow';
    const allowed = await client.callTool({
      name: 'Write',
      arguments: { file_path: target, content: 'yes' },
    });
    expect(allowed.isError).toBeFalsy();
    expect(await readFile(target, 'utf8')).toBe('yes');
    expect(questions).toHaveLength(2);
    expect(questions[0]).toMatch(/^Allow Write\?/);
  }, 60_000);

  it('--allowedTools lets a call run without asking; a cancelled call kills its processes, the session goes on', async () => {
    const client = await stdioClient(['--allowedTools', 'Bash(echo *)', 'Bash(sleep *)']);
    const result = await client.callTool({ name: 'Bash', arguments: { command: 'echo served' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('served');

    const seconds = String(400_000 + (process.pid % 10_000));
    const sleeping = () => {
      const out = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
      return out.split('\n').filter((line) => line.startsWith('sleep') && line.includes(seconds)).length;
    };
    const controller = new AbortController();
    const call = client.callTool({ name: 'Bash', arguments: { command: `sleep ${seconds}` } }, undefined, {
      signal: controller.signal,
    });
    await expect.poll(sleeping, { timeout: 15_000 }).toBeGreaterThan(0);
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(sleeping, { timeout: 10_000 }).toBe(0);
    const after = await client.callTool({ name: 'Bash', arguments: { command: 'echo still here' } });
    expect(text(after)).toContain('still here');
  }, 90_000);
});

describe('efferent mcp serve over HTTP', () => {
  let running: RunningHttpServer;
  let disposed = 0;
  beforeAll(async () => {
    running = await serveHttp({
      port: 0,
      token: 'test-token-123',
      createSession: async (askUser) => {
        const session = await createSession({ cwd: project, home, trusted: false, askUser });
        return {
          ...session,
          dispose: async () => {
            disposed += 1;
            await session.dispose();
          },
        };
      },
    });
  });
  afterAll(async () => {
    await running.close();
  });

  const post = (headers: Record<string, string>) =>
    fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });

  it('refuses requests without the bearer token, from a foreign Origin, or for a foreign Host', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect(
      (await post({ authorization: 'Bearer test-token-123', origin: 'http://evil.example' })).status,
    ).toBe(403);
    const port = new URL(running.url).port;
    const rebinding = await new Promise<number>((done) => {
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { host: `evil.example:${port}`, authorization: 'Bearer test-token-123' },
          },
          (res) => {
            res.resume();
            done(res.statusCode ?? 0);
          },
        );
        req.end('{}');
      });
    });
    expect(rebinding).toBe(403);
  });

  it('serves one efferent session per MCP session, disposed when the client ends it', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(running.url), {
      requestInit: { headers: { authorization: 'Bearer test-token-123' } },
    });
    const client = new Client({ name: 'http-client', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({
      name: 'Read',
      arguments: { file_path: join(project, 'hello.txt') },
    });
    expect(text(result)).toContain('hello from efferent');
    expect(running.sessions()).toBe(1);
    const before = disposed;
    await transport.terminateSession();
    await client.close();
    await expect.poll(() => disposed, { timeout: 3_000 }).toBe(before + 1);
    expect(running.sessions()).toBe(0);
  });
});
