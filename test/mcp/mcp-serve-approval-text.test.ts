import { mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Class `approval-text` (docs/decisions/security-approval-text.md): what `efferent mcp serve` asks an
 * MCP client's user must show what approving runs. The question used to cut the input silently at
 * 1,000 characters, so padding pushed `; rm …` out of sight, and it passed direction and C1 control
 * characters on, so `\u202e` reordered what the client showed.
 */

const repo = resolve(import.meta.dirname, '..', '..');
let root: string;
let project: string;
let home: string;
let client: Client;
const questions: string[] = [];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-approval-')));
  project = join(root, 'project');
  home = join(root, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repo, 'bin', 'efferent.js'), 'mcp', 'serve', '--cwd', project, '--untrusted'],
    env: { PATH: process.env['PATH'] ?? '', HOME: home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'approval-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    questions.push(request.params.message);
    return { action: 'decline' };
  });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

/** The question the client's user is asked for one call (the call is declined). */
async function question(name: string, args: Record<string, unknown>): Promise<string> {
  const before = questions.length;
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  expect(questions.length).toBe(before + 1);
  return questions.at(-1) ?? '';
}

const hiddenTail = 'touch /tmp/efferent-approval-hidden';

/** Ways to keep the end of a command out of sight in a question, generated. */
const paddings: Array<[string, (tail: string) => string]> = [
  ['spaces', (tail) => `echo ok${' '.repeat(3000)}; ${tail}`],
  ['tabs', (tail) => `echo ok${'\t'.repeat(1500)}; ${tail}`],
  ['long word', (tail) => `echo ${'a'.repeat(5000)}; ${tail}`],
  ['many arguments', (tail) => `echo ${Array.from({ length: 800 }, (_, i) => `x${i}`).join(' ')}; ${tail}`],
  ['newlines', (tail) => `echo ok${'\n'.repeat(1200)}${tail}`],
];

describe('mcp serve: the approval question shows what approving runs', () => {
  for (const [name, pad] of paddings) {
    it(`does not hide the end of a command behind ${name}`, async () => {
      const asked = await question('Bash', { command: pad(hiddenTail) });
      const shown = asked.includes(hiddenTail);
      const announced = /\d+ more characters not shown; deny if unsure/.test(asked);
      expect(shown || announced, asked.slice(-400)).toBe(true);
    }, 60_000);
  }

  it('shows direction and control characters as escapes, not as what they do', async () => {
    const asked = await question('Bash', { command: 'echo "\u202e\u0085\u009b2J\u2066" > note.txt' });
    expect(asked).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u0080-\u009f\u061c\u200e\u200f]/);
    expect(asked).toContain('\\u202e');
    const write = await question('Write', { file_path: join(project, 'a\u202etxt.sh'), content: 'x' });
    expect(write).not.toMatch(/[\u202a-\u202e]/);
    // Declined calls ran nothing.
    expect(await readdir(project)).toEqual([]);
  }, 60_000);
});
