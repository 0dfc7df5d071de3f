import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHookRunner } from './runner.ts';
import type { HookInput } from './types.ts';

/** A loopback server that records each request and answers with the next scripted reply. */
let server: Server;
let url: string;
const requests: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
let reply: (response: import('node:http').ServerResponse) => void;

beforeEach(async () => {
  requests.length = 0;
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => {
      requests.push({ headers: request.headers, body: JSON.parse(text) });
      reply(response);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

const input: HookInput = {
  session_id: 's1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/tmp',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
};
const run = (handler: Record<string, unknown>, extra: { allowedHttpHookUrls?: string[] } = {}) =>
  createHookRunner({
    hooks: { PreToolUse: [{ hooks: [{ type: 'http', url, ...handler }] }] },
    env: { TOKEN: 'secret-token', OTHER: 'not-allowed' },
    ...extra,
  }).run('PreToolUse', input, { signal: new AbortController().signal, matchValue: 'Bash' });

describe('http hooks', () => {
  it('POSTs the input as JSON with env-expanded headers and follows the output contract', async () => {
    reply = (response) =>
      response.end(
        JSON.stringify({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: 'no rm over HTTP',
          },
        }),
      );
    const outcome = await run({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${TOKEN} is what the hook expands.
      headers: { Authorization: 'Bearer ${TOKEN}', 'X-Other': '$OTHER' },
      allowedEnvVars: ['TOKEN'],
    });
    expect(outcome.permissionDecision).toMatchObject({ behavior: 'deny', reason: 'no rm over HTTP' });
    expect(requests[0]?.body).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash' });
    expect(requests[0]?.headers['authorization']).toBe('Bearer secret-token');
    // A variable the hook did not list is never sent.
    expect(requests[0]?.headers['x-other']).toBe('');
    expect(requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('treats an empty 2xx as success and a non-2xx or a non-JSON body as a non-blocking error', async () => {
    reply = (response) => response.end('');
    expect((await run({})).errors).toEqual([]);
    reply = (response) => {
      response.statusCode = 500;
      response.end('boom');
    };
    const failed = await run({});
    expect(failed.permissionDecision).toBeUndefined();
    expect(failed.errors[0]?.message).toMatch(/HTTP 500/);
    reply = (response) => response.end('ok');
    expect((await run({})).errors[0]?.message).toMatch(/not JSON/);
  });

  it('does not post to a URL outside allowedHttpHookUrls', async () => {
    reply = (response) => response.end('');
    const outcome = await run({}, { allowedHttpHookUrls: ['https://hooks.example.com/*'] });
    expect(requests).toHaveLength(0);
    expect(outcome.errors[0]?.message).toMatch(/not in allowedHttpHookUrls.*\.$/);
    await run({}, { allowedHttpHookUrls: ['http://127.0.0.1:*/hook'] });
    expect(requests).toHaveLength(1);
  });

  it('a PreToolUse http hook that times out denies the call, like every other hook', async () => {
    reply = () => {};
    const outcome = await run({ timeout: 0.3 });
    expect(outcome.permissionDecision).toMatchObject({
      behavior: 'deny',
      reason: expect.stringMatching(/timed out/),
    });
  });
});
