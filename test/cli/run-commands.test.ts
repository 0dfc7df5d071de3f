import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSse, type LoopbackServer, startLoopbackServer } from '../providers/loopback.ts';
import { startWithPipes } from './terminal-harness.ts';

let root: string;
let workspace: string;
let config: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'efferent-cmds-'));
  workspace = join(root, 'project');
  config = join(root, 'config');
  await Promise.all([mkdir(join(workspace, '.efferent', 'commands'), { recursive: true }), mkdir(config)]);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

const env = () => ({
  HOME: root,
  EFFERENT_CONFIG_DIR: config,
  ANTHROPIC_API_KEY: 'sk-test',
  ANTHROPIC_BASE_URL: server?.url ?? '',
});
const args = () => ['run', '--cwd', workspace, '--model', 'anthropic:claude-sonnet-4-5'];
// biome-ignore lint/suspicious/noExplicitAny: wire-format bodies
type Body = Record<string, any>;

describe('efferent run: memory files, slash commands and compaction', { timeout: 90_000 }, () => {
  it('reads user and project memory into the system prompt in the stated order', async () => {
    await writeFile(join(config, 'EFFERENT.md'), 'USER-LEVEL: answer in English.');
    await writeFile(join(workspace, 'AGENTS.md'), 'PROJECT-AGENTS: run npm test.');
    await writeFile(join(workspace, 'CLAUDE.md'), 'PROJECT-CLAUDE: use tabs.');
    await writeFile(join(workspace, 'EFFERENT.md'), 'PROJECT-EFFERENT: be brief.');
    server = await startLoopbackServer([{ chunks: anthropicSse({ text: 'Ok.' }) }]);
    const screen = startWithPipes([...args(), '-p', 'hi'], workspace, env());
    screen.child.stdin.end();
    expect(await screen.exit).toBe(0);
    const system = String((server.requests[0]?.body as Body | undefined)?.['system']?.[0]?.text ?? '');
    const order = ['USER-LEVEL', 'PROJECT-EFFERENT', 'PROJECT-AGENTS', 'PROJECT-CLAUDE'].map((marker) =>
      system.indexOf(marker),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
  });

  it('/help, /cost, /permissions, /model, custom commands, /compact and /clear', async () => {
    await writeFile(
      join(workspace, '.efferent', 'commands', 'review.md'),
      '---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.',
    );
    server = await startLoopbackServer([
      { chunks: anthropicSse({ text: 'First reply.', usage: { input: 100, output: 10 } }) },
      { chunks: anthropicSse({ text: 'Reviewed.', usage: { input: 200, output: 20 } }) },
      { chunks: anthropicSse({ text: 'SUMMARY: the user asked twice.' }) },
      { chunks: anthropicSse({ text: 'After compaction.' }) },
      { chunks: anthropicSse({ text: 'After clear.' }) },
    ]);
    const screen = startWithPipes(
      [...args(), '--allowedTools', 'Read', '--disallowedTools', 'Bash(rm *)'],
      workspace,
      env(),
    );
    const step = async (line: string, until: string) => {
      screen.type(`${line}\n`);
      await screen.until(until);
    };
    await screen.until('> ');
    await step('/help', '/review');
    expect(screen.output()).toContain('Review a file');
    await step('hello', 'First reply.');
    await step('/review src/app.ts', 'Reviewed.');
    expect(JSON.stringify(server.requests[1]?.body['messages'])).toContain('Review src/app.ts carefully.');
    await step('/cost', 'Tokens: 300 in, 30 out');
    // Sections print deny, ask, allow: wait for the last one before reading the screen.
    await step('/permissions', `  ${'Read'.padEnd(32)} `);
    expect(screen.output()).toMatch(/deny:\n\s+Bash\(rm \*\)/);
    expect(screen.output()).toMatch(/allow:\n\s+Read/);
    await step('/model', 'Model: anthropic:claude-sonnet-4-5');
    await step('/compact', 'Compacted 2 earlier messages');
    await step('after', 'After compaction.');
    const compacted = server.requests[3]?.body['messages'] as Body[];
    expect(JSON.stringify(compacted[0])).toContain('SUMMARY: the user asked twice.');
    expect(JSON.stringify(compacted)).not.toContain('First reply.');
    expect(JSON.stringify(compacted)).toContain('Reviewed.');
    await step('/clear', 'The conversation was cleared.');
    await step('fresh', 'After clear.');
    expect(server.requests[4]?.body['messages']).toHaveLength(1);
    await step('/nope', 'Unknown command /nope; /help lists the commands.');
    screen.type('/exit\n');
    expect(await screen.exit).toBe(0);
  });
});
