import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEfferent } from './run-efferent.ts';

/**
 * One case table, three entry points: `check` must name the decision `call` and `run` act on. The
 * user's settings add a directory, deny a secret and allow and ask about commands; the same real
 * processes a user would start decide each case.
 */

type Behavior = 'allow' | 'deny' | 'ask';
interface Case {
  name: string;
  tool: string;
  input: (dirs: Dirs) => Record<string, unknown>;
  expected: Behavior;
}
interface Dirs {
  root: string;
  project: string;
  shared: string;
  outside: string;
  home: string;
}

const cases: Case[] = [
  {
    name: 'a read in an additional directory',
    tool: 'Read',
    input: (d) => ({ file_path: join(d.shared, 'data.txt') }),
    expected: 'allow',
  },
  {
    name: 'a search in an additional directory',
    tool: 'Grep',
    input: (d) => ({ pattern: 'data', path: d.shared }),
    expected: 'allow',
  },
  {
    name: 'a read in the project',
    tool: 'Read',
    input: (d) => ({ file_path: join(d.project, 'notes.txt') }),
    expected: 'allow',
  },
  {
    name: 'a read a deny rule covers',
    tool: 'Read',
    input: (d) => ({ file_path: join(d.project, 'secret.txt') }),
    expected: 'deny',
  },
  {
    name: 'a read outside every working directory',
    tool: 'Read',
    input: (d) => ({ file_path: join(d.outside, 'x.txt') }),
    expected: 'ask',
  },
  {
    name: 'a command an allow rule covers',
    tool: 'Bash',
    input: () => ({ command: 'echo hi' }),
    expected: 'allow',
  },
  {
    name: 'a command an ask rule covers',
    tool: 'Bash',
    input: () => ({ command: 'echo ask-me' }),
    expected: 'ask',
  },
];

/** What a tool_result says about the decision behind it. */
function behaviorOf(text: string): Behavior {
  if (/Permission to .* was denied/.test(text)) return 'deny';
  if (/Permission to .* was not granted: it needs approval/.test(text)) return 'ask';
  return 'allow';
}

let dirs: Dirs;
beforeAll(async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-parity-')));
  dirs = {
    root,
    project: join(root, 'project'),
    shared: join(root, 'shared'),
    outside: join(root, 'outside'),
    home: join(root, 'home'),
  };
  for (const dir of [dirs.project, dirs.shared, dirs.outside, join(dirs.home, '.efferent')])
    await mkdir(dir, { recursive: true });
  await writeFile(join(dirs.project, 'notes.txt'), 'notes\n');
  await writeFile(join(dirs.project, 'secret.txt'), 'secret\n');
  await writeFile(join(dirs.shared, 'data.txt'), 'data\n');
  await writeFile(join(dirs.outside, 'x.txt'), 'outside\n');
  await writeFile(
    join(dirs.home, '.efferent', 'settings.json'),
    JSON.stringify({
      permissions: {
        additionalDirectories: [dirs.shared],
        deny: ['Read(./secret.txt)'],
        allow: ['Bash(echo *)'],
        ask: ['Bash(echo ask*)'],
      },
    }),
  );
});
afterAll(async () => {
  await rm(dirs.root, { recursive: true, force: true });
});

// Every entry point is a real CLI process; on a loaded machine each may take many seconds.
describe('check, call and run decide alike (one case table through each entry point)', () => {
  it('gives the same decision for every case', { timeout: 600_000 }, async () => {
    const env = { EFFERENT_MANAGED_SETTINGS: join(dirs.root, 'no-managed.json') };
    const run = (args: string[]) => runEfferent(args, dirs.project, dirs.home, env);
    const viaCheck = await Promise.all(
      cases.map(async (item) => {
        const result = await run([
          'check',
          item.tool,
          JSON.stringify(item.input(dirs)),
          '--cwd',
          dirs.project,
        ]);
        expect(result.code, result.stderr).toBe(0);
        return /^Decision: (\w+)$/m.exec(result.stdout)?.[1];
      }),
    );
    const viaCall = await Promise.all(
      cases.map(async (item) => {
        const result = await run([
          'call',
          item.tool,
          JSON.stringify(item.input(dirs)),
          '--cwd',
          dirs.project,
        ]);
        const behavior = behaviorOf(result.stdout);
        // An allowed call really ran (these tools succeed here); a refused one exits non-zero.
        expect(result.code, `${item.name}: ${result.stdout}${result.stderr}`).toBe(
          behavior === 'allow' ? 0 : 1,
        );
        return behavior;
      }),
    );
    const session = [
      {
        events: cases.map((item, index) => ({
          type: 'tool_use',
          id: `case_${index}`,
          name: item.tool,
          input: item.input(dirs),
        })),
      },
      { events: [{ type: 'text_delta', text: 'done' }] },
    ];
    await writeFile(join(dirs.root, 'session.jsonl'), session.map((turn) => JSON.stringify(turn)).join('\n'));
    const headless = await run([
      'run',
      '-p',
      'go',
      '--model',
      `replay:${join(dirs.root, 'session.jsonl')}`,
      '--output-format',
      'stream-json',
      '--cwd',
      dirs.project,
    ]);
    expect(headless.code, headless.stderr).toBe(0);
    const results = new Map<string, string>();
    for (const line of headless.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      // stream-json in Claude Code's shape: tool results arrive in `user` envelopes.
      const event = JSON.parse(line) as {
        type: string;
        message?: { content?: Array<{ type: string; tool_use_id?: string; content?: unknown }> };
      };
      if (event.type !== 'user') continue;
      for (const block of event.message?.content ?? [])
        if (block.type === 'tool_result' && block.tool_use_id)
          results.set(block.tool_use_id, JSON.stringify(block.content));
    }
    const viaRun = cases.map((_item, index) => behaviorOf(results.get(`case_${index}`) ?? 'missing'));
    const table = cases.map((item, index) => ({
      case: item.name,
      expected: item.expected,
      check: viaCheck[index],
      call: viaCall[index],
      run: viaRun[index],
    }));
    const expected = cases.map((item) => ({
      case: item.name,
      expected: item.expected,
      check: item.expected,
      call: item.expected,
      run: item.expected,
    }));
    expect(table).toEqual(expected);
  });
});
