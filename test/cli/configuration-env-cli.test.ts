import { mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, openaiSse, startLoopbackServer } from '../providers/loopback.ts';
import { runEfferent } from './run-efferent.ts';

/**
 * Provider and MCP configuration variables set only in a settings file's `env` (or its `model` key)
 * reach a real `efferent run` / `efferent call`: the official SDKs talk to loopback servers, MCP servers
 * run over stdio.
 */

const limitsServer = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'limits-server.mjs');
let root: string;
let home: string;
let project: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-config-cli-')));
  home = join(root, 'home');
  project = join(root, 'project');
  await mkdir(join(home, '.efferent'), { recursive: true });
  await mkdir(project);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

/** The key a request carried (the SDK sends it as x-api-key or as a bearer token). */
function sentKey(request: LoopbackServer['requests'][number] | undefined): string | undefined {
  const header = request?.headers['x-api-key'] ?? request?.headers['authorization'];
  return typeof header === 'string' ? header.replace(/^Bearer /, '') : undefined;
}

async function userSettings(settings: Record<string, unknown>): Promise<void> {
  await writeFile(join(home, '.efferent', 'settings.json'), JSON.stringify(settings));
}

const noPolicy = () => ({ EFFERENT_MANAGED_SETTINGS: join(root, 'no-policy.json') });

function run(env: Record<string, string> = {}, args: string[] = []) {
  return runEfferent(['run', '-p', 'hello', '--cwd', project, ...args], project, home, {
    ...noPolicy(),
    ...env,
  });
}

describe('provider variables from settings env', () => {
  it('ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and ANTHROPIC_MODEL set only in settings reach the Anthropic SDK', async () => {
    server = await startLoopbackServer([{ chunks: anthropicSse({ text: 'Hello from loopback.' }) }]);
    await userSettings({
      env: {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'sk-from-settings',
        ANTHROPIC_MODEL: 'claude-from-env-1',
      },
    });
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from loopback.');
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(sentKey(server.requests[0])).toBe('sk-from-settings');
    expect(server.requests[0]?.body['model']).toBe('claude-from-env-1');
  });

  it('settings env wins over the shell; the settings model key applies when ANTHROPIC_MODEL is unset', async () => {
    server = await startLoopbackServer([{ chunks: anthropicSse({ text: 'Reached.' }) }]);
    await userSettings({
      model: 'claude-from-settings-key',
      env: { ANTHROPIC_BASE_URL: server.url },
    });
    // The shell points at a closed port: only the settings value can succeed.
    const result = await run({ ANTHROPIC_API_KEY: 'sk-shell', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.body['model']).toBe('claude-from-settings-key');
    expect(sentKey(server.requests[0])).toBe('sk-shell');
  });

  it('OPENAI_BASE_URL in settings env chooses the OpenAI-compatible provider', async () => {
    server = await startLoopbackServer([{ chunks: openaiSse({ text: 'From the OpenAI side.' }) }]);
    await userSettings({ env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-openai' } });
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('From the OpenAI side.');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-openai');
  });

  it('doctor names the model settings choose', async () => {
    await userSettings({ env: { ANTHROPIC_MODEL: 'claude-doctor-1' } });
    const result = await runEfferent(['doctor', '--cwd', project], project, home, noPolicy());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Model: anthropic:claude-doctor-1 \(ANTHROPIC_MODEL from settings env; --model overrides it\)$/m,
    );
  });
});

describe('MCP variables from settings env', () => {
  function call(tool: string, input: Record<string, unknown>, serverEnv: Record<string, string> = {}) {
    const config = JSON.stringify({
      mcpServers: { limits: { command: process.execPath, args: [limitsServer], env: serverEnv } },
    });
    return runEfferent(
      [
        'call',
        `mcp__limits__${tool}`,
        JSON.stringify(input),
        '--mcp-config',
        config,
        '--allowedTools',
        'mcp__limits',
        '--cwd',
        project,
      ],
      project,
      home,
      noPolicy(),
    );
  }

  it('MCP_TIMEOUT: a server slower to start than the settings value fails with the variable named', {
    timeout: 120_000,
  }, async () => {
    await userSettings({ env: { MCP_TIMEOUT: '300' } });
    const slow = await call('wait', { ms: 1 }, { START_DELAY_MS: '5000' });
    expect(slow.stderr).toMatch(/"limits" failed to start: .*MCP_TIMEOUT/);
    expect(slow.code).not.toBe(0);
  });

  it('MCP_TOOL_TIMEOUT: a tool call longer than the settings value is stopped', {
    timeout: 120_000,
  }, async () => {
    // The quick call's whole round trip must fit in the limit on a loaded machine too.
    await userSettings({ env: { MCP_TOOL_TIMEOUT: '3000' } });
    const slow = await call('wait', { ms: 20_000 });
    expect(slow.stdout + slow.stderr).toMatch(/timed out/i);
    expect(slow.stdout).not.toContain('waited');
    const quick = await call('wait', { ms: 1 });
    expect(quick.stdout).toContain('waited 1 ms');
  });

  it('MAX_MCP_OUTPUT_TOKENS: a larger result comes back as a preview and a saved file', {
    timeout: 120_000,
  }, async () => {
    await userSettings({ env: { MAX_MCP_OUTPUT_TOKENS: '50' } });
    const result = await call('repeat', { text: 'word ', times: 400 });
    expect(result.stdout).toContain('Output too large to show inline');
    expect(result.stdout).not.toContain('word '.repeat(400));
  });
});

describe('cleanupPeriodDays', () => {
  it('efferent run deletes saved transcripts older than the settings value, in every project', {
    timeout: 120_000,
  }, async () => {
    const projects = join(home, '.efferent', 'projects');
    await mkdir(join(projects, 'other-project'), { recursive: true });
    const old = join(projects, 'other-project', 'old-session.jsonl');
    const recent = join(projects, 'other-project', 'recent-session.jsonl');
    await writeFile(old, '{}\n');
    await writeFile(recent, '{}\n');
    const fortyDaysAgo = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    await utimes(old, fortyDaysAgo, fortyDaysAgo);
    await userSettings({ cleanupPeriodDays: 30 });
    await writeFile(
      join(project, 'session.jsonl'),
      JSON.stringify({ events: [{ type: 'text_delta', text: 'Hi.' }] }),
    );
    const result = await run({}, ['--model', 'replay:session.jsonl']);
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(join(projects, 'other-project'))).toEqual(['recent-session.jsonl']);
  });
});
