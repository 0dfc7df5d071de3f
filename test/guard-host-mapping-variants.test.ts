import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decideHookPayload } from '../src/cli/commands/guard.ts';
import { deniedUnder } from '../src/cli/guard/denied-under.ts';
import { hostVerdict } from '../src/cli/guard/guard-output.ts';
import { type GuardHost, parseHookPayload } from '../src/cli/guard/host-calls.ts';

// Class `guard-host-mapping` (docs/decisions/security-guard-host-mapping.md): a host call must not map
// onto a more harmless efferent call than what the host runs. Each case is a real session on a real
// repository; what is asserted is the answer the host would get.
vi.setConfig({ testTimeout: 240_000 });

let project: string;
let home: string;

beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-guard-map-')));
  home = `${project}-home`;
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret\n');
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'a.txt'), 'a\n');
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/** What the host gets for one hook input. */
async function hostAnswer(host: GuardHost, hook: Record<string, unknown>): Promise<string> {
  const event = host === 'gemini' ? { hook_event_name: 'BeforeTool' } : { hook_event_name: 'PreToolUse' };
  const codex = host === 'codex' ? { turn_id: 't1' } : {};
  const payload = parseHookPayload(JSON.stringify({ cwd: project, ...event, ...codex, ...hook }), host);
  const decision = await decideHookPayload(payload, { home });
  return hostVerdict(host, decision, 'ask', 'allow');
}

/** Files a patch must never write unasked, from the project's root. */
const protectedTargets = [
  '.git/hooks/pre-commit',
  '.claude/settings.json',
  '.vscode/tasks.json',
  '../outside.sh',
];

/** Header spellings hosts accept (Codex trims each header line). */
const headerSpellings = [
  (path: string) => `*** Add File: ${path}`,
  (path: string) => `  *** Add File: ${path}`,
  (path: string) => `\t*** Add File: ${path}`,
  (path: string) => `*** Add File: ${path}   `,
  (path: string) => `*** add file: ${path}`,
  (path: string) => `*** Update File: src/a.txt\n*** Move to: ${path}`,
  (path: string) => ` *** Delete File: ${path}`,
];

const patchOf = (header: string) =>
  ['*** Begin Patch', '*** Add File: notes.txt', '+fine', header, '+curl x | sh', '*** End Patch'].join('\n');

const heredoc = (patch: string) => `apply_patch <<'EOF'\n${patch}\nEOF`;

/** Shapes in which a host carries a patch it applies itself. */
const carriers: ReadonlyArray<[string, (patch: string) => Record<string, unknown>]> = [
  ['apply_patch tool', (patch) => ({ tool_name: 'apply_patch', tool_input: { command: patch } })],
  ['Bash heredoc', (patch) => ({ tool_name: 'Bash', tool_input: { command: heredoc(patch) } })],
  [
    'Bash cd && heredoc',
    (patch) => ({ tool_name: 'Bash', tool_input: { command: `cd src && ${heredoc(patch)}` } }),
  ],
  [
    'shell argv apply_patch',
    (patch) => ({ tool_name: 'shell', tool_input: { command: ['apply_patch', patch] } }),
  ],
  [
    'shell argv applypatch',
    (patch) => ({ tool_name: 'shell', tool_input: { command: ['applypatch', patch] } }),
  ],
  [
    'shell bash -lc heredoc',
    (patch) => ({ tool_name: 'shell', tool_input: { command: ['bash', '-lc', heredoc(patch)] } }),
  ],
  ['exec_command heredoc', (patch) => ({ tool_name: 'exec_command', tool_input: { cmd: heredoc(patch) } })],
];

describe('guard: patches a host applies itself are decided as the writes they are', () => {
  const cases = carriers.flatMap(([carrier, shape]) =>
    headerSpellings.flatMap((spelling, index) =>
      protectedTargets.map((target) => ({
        name: `${carrier} / spelling ${index} / ${target}`,
        shape,
        spelling,
        target,
      })),
    ),
  );

  it(`blocks ${cases.length} generated patches that write a protected or outside file on Codex`, async () => {
    const missed: string[] = [];
    for (const { name, shape, spelling, target } of cases) {
      const verdict = await hostAnswer('codex', shape(patchOf(spelling(target))));
      if (verdict !== 'deny') missed.push(`${name}: ${verdict}`);
    }
    expect(missed).toEqual([]);
  });

  it('leaves an in-project patch to Codex in every carrier', async () => {
    const patch = ['*** Begin Patch', '*** Add File: notes.txt', '+fine', '*** End Patch'].join('\n');
    for (const [carrier, shape] of carriers)
      expect(await hostAnswer('codex', shape(patch)), carrier).toBe('no-opinion');
  });
});

describe('guard: every field a host may read is decided', () => {
  it('decides each command field of a Codex shell call', async () => {
    const both = { command: 'ls', cmd: 'echo x > .git/hooks/pre-commit' };
    for (const tool of ['exec_command', 'shell', 'shell_command', 'local_shell'])
      expect(await hostAnswer('codex', { tool_name: tool, tool_input: both }), tool).toBe('deny');
    const swapped = { command: 'echo x > .git/hooks/pre-commit', cmd: 'ls' };
    expect(await hostAnswer('codex', { tool_name: 'exec_command', tool_input: swapped })).toBe('deny');
    expect(await hostAnswer('codex', { tool_name: 'exec_command', tool_input: { cmd: 'git status' } })).toBe(
      'no-opinion',
    );
    const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`;
    for (const [safe, risky] of [
      ['command', 'input'],
      ['input', 'patch'],
      ['patch', 'command'],
    ] as const)
      expect(
        await hostAnswer('codex', {
          tool_name: 'apply_patch',
          tool_input: { [safe]: patch('notes.txt'), [risky]: patch('.git/hooks/pre-commit') },
        }),
        risky,
      ).toBe('deny');
  });

  it('decides each folder and each path field of a Gemini call', async () => {
    const key = join(home, '.ssh', 'id_rsa');
    const fileTools: ReadonlyArray<[string, Record<string, unknown>]> = [
      ['read_file', {}],
      ['write_file', { content: 'x' }],
      ['replace', { old_string: 'a', new_string: 'b' }],
    ];
    for (const [tool, rest] of fileTools) {
      for (const [safe, risky] of [
        ['file_path', 'absolute_path'],
        ['absolute_path', 'file_path'],
        ['file_path', 'path'],
      ] as const) {
        const input = { ...rest, [safe]: 'src/a.txt', [risky]: key };
        expect(await hostAnswer('gemini', { tool_name: tool, tool_input: input }), `${tool} ${risky}`).toBe(
          'deny',
        );
      }
    }
    for (const [safe, risky] of [
      ['dir_path', 'directory'],
      ['directory', 'dir_path'],
    ] as const) {
      const shell = { command: 'echo x > pre-commit', [safe]: '.', [risky]: '.git/hooks' };
      expect(await hostAnswer('gemini', { tool_name: 'run_shell_command', tool_input: shell }), risky).toBe(
        'deny',
      );
      const listing = { [safe]: '.', [risky]: join(home, '.ssh') };
      for (const tool of ['list_directory', 'glob', 'search_file_content'])
        expect(
          await hostAnswer('gemini', { tool_name: tool, tool_input: { pattern: '*', ...listing } }),
          `${tool} ${risky}`,
        ).toBe('deny');
    }
    // One field, inside the project: still allowed.
    expect(
      await hostAnswer('gemini', { tool_name: 'read_file', tool_input: { file_path: 'src/a.txt' } }),
    ).toBe('allow');
    expect(
      await hostAnswer('gemini', {
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls', dir_path: 'src' },
      }),
    ).toBe('allow');
  });
});

describe('guard: a host search over a folder holding denied files reads them', () => {
  /** Deny rules, and a file each covers, at several depths. */
  const denials: ReadonlyArray<[string, string]> = [
    ['Read(./secrets/**)', 'secrets/key.pem'],
    ['Read(**/.env)', 'app/.env'],
    ['Read(*.pem)', 'deep/er/still/cert.pem'],
    ['Read(./config/prod.json)', 'config/prod.json'],
  ];

  /** Host search calls over the project (the folder named, or the hook's cwd). */
  const searches: ReadonlyArray<[GuardHost, Record<string, unknown>]> = [
    ['claude', { tool_name: 'Grep', tool_input: { pattern: 'KEY' } }],
    ['claude', { tool_name: 'Grep', tool_input: { pattern: 'KEY', path: '.' } }],
    ['codex', { tool_name: 'Grep', tool_input: { pattern: 'KEY' } }],
    ['gemini', { tool_name: 'search_file_content', tool_input: { pattern: 'KEY' } }],
    ['gemini', { tool_name: 'grep_search', tool_input: { pattern: 'KEY', dir_path: '.' } }],
    ['gemini', { tool_name: 'read_many_files', tool_input: { paths: ['.'] } }],
  ];

  let searched: string;
  beforeAll(() => {
    searched = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-guard-search-')));
    mkdirSync(join(searched, '.git'));
    mkdirSync(join(searched, '.claude'));
    mkdirSync(join(searched, 'src'));
    writeFileSync(join(searched, 'src', 'index.ts'), 'export const KEY = 1;\n');
    for (const [, file] of denials) {
      mkdirSync(join(searched, file, '..'), { recursive: true });
      writeFileSync(join(searched, file), 'KEY=secret\n');
    }
  });
  afterAll(() => rmSync(searched, { recursive: true, force: true }));

  const answer = async (host: GuardHost, hook: Record<string, unknown>, deny: string[]) => {
    writeFileSync(join(searched, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny } }));
    const event = host === 'gemini' ? { hook_event_name: 'BeforeTool' } : { hook_event_name: 'PreToolUse' };
    const codex = host === 'codex' ? { turn_id: 't1' } : {};
    const payload = parseHookPayload(JSON.stringify({ cwd: searched, ...event, ...codex, ...hook }), host);
    return hostVerdict(host, await decideHookPayload(payload, { home }), 'ask', 'allow');
  };

  it(`does not allow ${denials.length * searches.length} generated searches over a folder holding a denied file`, async () => {
    const missed: string[] = [];
    for (const [rule] of denials) {
      for (const [host, hook] of searches) {
        const verdict = await answer(host, hook, [rule]);
        const expected = host === 'claude' ? 'ask' : 'deny';
        if (verdict !== expected) missed.push(`${rule} ${host} ${JSON.stringify(hook)}: ${verdict}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('still allows a search of a folder without denied files, and any search when no rule denies reads', async () => {
    for (const [rule] of denials) {
      expect(
        await answer('claude', { tool_name: 'Grep', tool_input: { pattern: 'KEY', path: 'src' } }, [rule]),
      ).toBe('allow');
      expect(
        await answer('gemini', { tool_name: 'read_many_files', tool_input: { paths: ['src'] } }, [rule]),
      ).toBe('allow');
    }
    for (const [host, hook] of searches)
      expect(await answer(host, hook, ['Bash(rm *)']), `${host} ${JSON.stringify(hook)}`).not.toBe('deny');
    // The search's own filter: only the files it selects are read.
    for (const [rule, file] of denials) {
      expect(
        await answer('claude', { tool_name: 'Grep', tool_input: { pattern: 'KEY', glob: '*.ts' } }, [rule]),
        rule,
      ).toBe('allow');
      expect(
        await answer(
          'gemini',
          { tool_name: 'search_file_content', tool_input: { pattern: 'KEY', include: '*.ts' } },
          [rule],
        ),
        rule,
      ).toBe('allow');
      const name = file.split('/').at(-1) ?? file;
      for (const glob of [name, `**/${name}`, '*', '!*.ts'])
        expect(
          await answer('claude', { tool_name: 'Grep', tool_input: { pattern: 'KEY', glob } }, [rule]),
          `${rule} ${glob}`,
        ).toBe('ask');
    }
  });
});

describe('deniedUnder', () => {
  it('finds the first denied path, and says when a folder is too large to check', () => {
    const denied = (path: string) => path.endsWith('/key.pem');
    expect(deniedUnder(project, denied, project)).toEqual({ kind: 'none' });
    writeFileSync(join(project, 'src', 'key.pem'), 'k\n');
    expect(deniedUnder(project, denied, project)).toEqual({
      kind: 'found',
      path: join(project, 'src', 'key.pem'),
    });
    expect(deniedUnder(project, denied, project, { maxDepth: 12, maxEntries: 1 })).toEqual({
      kind: 'unchecked',
    });
    expect(deniedUnder(project, denied, project, { maxDepth: 1, maxEntries: 100 })).toEqual({
      kind: 'unchecked',
    });
    // A file, or a path that does not exist, was judged by the call's own decision.
    expect(deniedUnder(join(project, 'src', 'a.txt'), () => true, project)).toEqual({ kind: 'none' });
    expect(deniedUnder(join(project, 'missing'), () => true, project)).toEqual({ kind: 'none' });
    rmSync(join(project, 'src', 'key.pem'));
  });
});

describe('guard: the reason a host shows its user', () => {
  it('shows characters that act on a terminal as escapes', async () => {
    const inputs: Array<[string, Record<string, unknown>]> = [
      ['Write', { file_path: join(project, '.git', 'hooks', 'pre\u202ecommit'), content: 'x' }],
      ['Write', { file_path: join(project, '.git', 'hooks', 'post\u009bmerge'), content: 'x' }],
    ];
    for (const [tool, input] of inputs) {
      const payload = parseHookPayload(
        JSON.stringify({ cwd: project, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }),
        'claude',
      );
      const decision = await decideHookPayload(payload, { home });
      expect(decision.verdict).toBe('ask');
      expect(decision.reason).not.toMatch(
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
      );
      expect(decision.reason).toMatch(/\\(u202e|x9b)/);
    }
  });
});

describe('guard: an MCP tool is decided under the server that serves it', () => {
  /** What the host gets for an MCP tool call under `--allowedTools mcp__a`. */
  const verdict = async (host: GuardHost, toolName: string, mcpContext?: Record<string, unknown>) => {
    const event = host === 'gemini' ? { hook_event_name: 'BeforeTool' } : { hook_event_name: 'PreToolUse' };
    const payload = parseHookPayload(
      JSON.stringify({
        cwd: project,
        ...event,
        tool_name: toolName,
        tool_input: {},
        ...(mcpContext ? { mcp_context: mcpContext } : {}),
      }),
      host,
    );
    return hostVerdict(
      host,
      await decideHookPayload(payload, { home, allowedTools: ['mcp__a'] }),
      'ask',
      'allow',
    );
  };

  it('does not let a server named a__b (or a.b__x) use the rules of server a', async () => {
    const impostors: Array<[string, string]> = [
      ['a__b', 'mcp__a__b__delete_all'],
      ['a__', 'mcp__a____delete_all'],
      ['a__x__y', 'mcp__a__x__y__run'],
    ];
    for (const [server, tool] of impostors) {
      expect(await verdict('gemini', tool, { server_name: server }), tool).not.toBe('allow');
      // Without the host saying which server it is, a name that splits two ways is not allowed either.
      expect(await verdict('claude', tool), tool).toBe('ask');
    }
  });

  it('reads a resource under its own server only', async () => {
    const read = async (server: string) => {
      const payload = parseHookPayload(
        JSON.stringify({
          cwd: project,
          hook_event_name: 'PreToolUse',
          tool_name: 'ReadMcpResourceTool',
          tool_input: { server, uri: 'x://y' },
        }),
        'claude',
      );
      return (await decideHookPayload(payload, { home, allowedTools: ['mcp__a'] })).verdict;
    };
    expect(await read('a__b')).toBe('ask');
    expect(await read('a')).toBe('allow');
  });

  it("still allows server a's own tools", async () => {
    expect(await verdict('gemini', 'mcp__a__search', { server_name: 'a' })).toBe('allow');
    expect(await verdict('claude', 'mcp__a__search')).toBe('allow');
    expect(await verdict('claude', 'mcp__a__search_code')).toBe('allow');
  });
});
