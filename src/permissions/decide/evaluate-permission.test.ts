import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  HookPermissionDecision,
  PermissionMode,
  PermissionTarget,
  ToolPermissionResult,
} from '../../core/index.ts';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../default-shell.ts';
import { knownToolDeclarations } from '../known-tools.ts';
import { lexicalRealpath } from '../paths/canonical-path.ts';
import { buildRules } from '../rules/build-rules.ts';
import type { RuleSet } from '../rules/rule-types.ts';
import { evaluatePermission } from './evaluate-permission.ts';
import { createWorkspace, type Workspace } from './workspace.ts';

let shell: DefaultShellAnalyzer;
beforeAll(async () => {
  shell = await loadDefaultShellAnalyzer();
});

const cwd = '/srv/proj';
const home = '/home/user';

interface Row {
  tool: string;
  input: Record<string, unknown>;
  rules?: { allow?: string[]; deny?: string[]; ask?: string[] };
  mode?: PermissionMode;
  hook?: HookPermissionDecision;
  toolResult?: ToolPermissionResult;
  expected: 'allow' | 'deny' | 'ask';
  /** Text the message or trace must contain. */
  explains?: RegExp;
}

function rulesOf(row: Row, root = cwd): RuleSet {
  const origin = { source: 'projectSettings' as const, origin: '.efferent/settings.json', root };
  return {
    allow: buildRules(row.rules?.allow ?? [], 'allow', origin).rules,
    deny: buildRules(row.rules?.deny ?? [], 'deny', origin).rules,
    ask: buildRules(row.rules?.ask ?? [], 'ask', origin).rules,
  };
}

function decide(
  row: Row,
  workspace: Workspace = createWorkspace({
    cwd,
    projectRoot: cwd,
    home,
    additionalDirectories: ['/srv/shared'],
    realpath: lexicalRealpath,
  }),
) {
  const declaration = knownToolDeclarations[row.tool];
  const target: PermissionTarget = declaration
    ? declaration.target(row.input, workspace.cwd)
    : { kind: 'none' };
  return evaluatePermission({
    tool: { name: row.tool, aliases: declaration?.aliases ?? [] },
    input: row.input,
    target,
    readOnly: declaration?.readOnly(row.input) ?? null,
    mode: row.mode ?? 'default',
    rules: rulesOf(row, workspace.cwd),
    workspace,
    shell,
    ...(row.hook ? { hookDecision: row.hook } : {}),
    ...(row.toolResult ? { toolResult: row.toolResult } : {}),
  });
}

const bash = (command: string) => ({ command });

const table: Array<[string, Row]> = [
  // Shell rules: word boundaries, compound commands, wrappers, env prefixes.
  [
    'prefix rule allows its command',
    {
      tool: 'Bash',
      input: bash('npm run test --watch'),
      rules: { allow: ['Bash(npm run test *)'] },
      expected: 'allow',
      explains: /npm run test \*/,
    },
  ],
  [
    'word boundary: ls * does not cover lsof',
    { tool: 'Bash', input: bash('lsof -i'), rules: { allow: ['Bash(ls *)'] }, expected: 'ask' },
  ],
  [
    'legacy prefix does not cover test:e2e',
    {
      tool: 'Bash',
      input: bash('npm run test:e2e'),
      rules: { allow: ['Bash(npm run test:*)'] },
      expected: 'ask',
    },
  ],
  [
    'every subcommand must be allowed',
    {
      tool: 'Bash',
      input: bash('npm test && curl https://x.example'),
      rules: { allow: ['Bash(npm test)'] },
      expected: 'ask',
    },
  ],
  [
    'deny on any subcommand denies',
    {
      tool: 'Bash',
      input: bash('git fetch && git clean -fd'),
      rules: { allow: ['Bash(git *)'], deny: ['Bash(git clean *)'] },
      expected: 'deny',
      explains: /git clean \*/,
    },
  ],
  [
    'deny reaches inside $()',
    { tool: 'Bash', input: bash('echo $(rm -rf dist)'), rules: { deny: ['Bash(rm *)'] }, expected: 'deny' },
  ],
  [
    'deny sees through wrappers',
    {
      tool: 'Bash',
      input: bash('timeout 5 nice rm -rf dist'),
      rules: { deny: ['Bash(rm *)'] },
      expected: 'deny',
    },
  ],
  [
    'deny sees through a path to the binary',
    { tool: 'Bash', input: bash('/bin/rm -rf dist'), rules: { deny: ['Bash(rm *)'] }, expected: 'deny' },
  ],
  [
    'deny sees past any env prefix',
    { tool: 'Bash', input: bash('FOO=1 rm -rf dist'), rules: { deny: ['Bash(rm *)'] }, expected: 'deny' },
  ],
  [
    'safe env prefix still matches an allow',
    {
      tool: 'Bash',
      input: bash('NODE_ENV=test npm test'),
      rules: { allow: ['Bash(npm test)'] },
      expected: 'allow',
    },
  ],
  [
    'neutral env prefix does not match an allow',
    { tool: 'Bash', input: bash('FOO=1 npm test'), rules: { allow: ['Bash(npm test)'] }, expected: 'ask' },
  ],
  [
    'dangerous env prefix is never allowed',
    {
      tool: 'Bash',
      input: bash('NODE_OPTIONS=--require=./x.js npm test'),
      rules: { allow: ['Bash(npm test)'] },
      expected: 'ask',
    },
  ],
  [
    'ask rule beats an allow rule',
    {
      tool: 'Bash',
      input: bash('git push origin main'),
      rules: { allow: ['Bash(git *)'], ask: ['Bash(git push *)'] },
      expected: 'ask',
      explains: /git push/,
    },
  ],
  [
    'prefix rule never covers a program-valued option',
    {
      tool: 'Bash',
      input: bash('git diff --output=/tmp/x'),
      rules: { allow: ['Bash(git diff *)'] },
      expected: 'ask',
    },
  ],
  [
    'prefix rule never covers find -exec',
    {
      tool: 'Bash',
      input: bash('find . -exec rm {} +'),
      rules: { allow: ['Bash(find *)'] },
      expected: 'ask',
    },
  ],
  ['read-only command runs in default mode', { tool: 'Bash', input: bash('ls -la src'), expected: 'allow' }],
  [
    'a write redirect needs approval in default mode',
    { tool: 'Bash', input: bash('echo hi > notes.txt'), rules: { allow: ['Bash(echo *)'] }, expected: 'ask' },
  ],
  [
    'a write redirect outside the project asks even in acceptEdits',
    { tool: 'Bash', input: bash('echo hi > /tmp/notes.txt'), mode: 'acceptEdits', expected: 'ask' },
  ],
  [
    'a redirect into a protected file asks in acceptEdits',
    { tool: 'Bash', input: bash('echo x >> .git/hooks/pre-commit'), mode: 'acceptEdits', expected: 'ask' },
  ],
  [
    'acceptEdits allows file commands inside the project',
    { tool: 'Bash', input: bash('mkdir -p build && touch build/x'), mode: 'acceptEdits', expected: 'allow' },
  ],
  [
    'acceptEdits does not allow other commands',
    { tool: 'Bash', input: bash('npm publish'), mode: 'acceptEdits', expected: 'ask' },
  ],
  [
    'critical rm asks even in bypass',
    {
      tool: 'Bash',
      input: bash('rm -rf ~'),
      mode: 'bypassPermissions',
      expected: 'ask',
      explains: /critical/,
    },
  ],
  [
    'rm of the project root asks even with an allow rule',
    { tool: 'Bash', input: bash('rm -rf /srv/proj'), rules: { allow: ['Bash(rm *)'] }, expected: 'ask' },
  ],
  [
    'rm of a glob in the cwd asks in bypass',
    { tool: 'Bash', input: bash('rm -rf *'), mode: 'bypassPermissions', expected: 'ask' },
  ],
  [
    'bypass allows an unlisted command',
    { tool: 'Bash', input: bash('npm publish'), mode: 'bypassPermissions', expected: 'allow' },
  ],
  [
    'bypass still honours deny rules',
    {
      tool: 'Bash',
      input: bash('npm publish'),
      mode: 'bypassPermissions',
      rules: { deny: ['Bash(npm publish)'] },
      expected: 'deny',
    },
  ],
  [
    'bypass still honours ask rules',
    {
      tool: 'Bash',
      input: bash('npm publish'),
      mode: 'bypassPermissions',
      rules: { ask: ['Bash(npm *)'] },
      expected: 'ask',
    },
  ],
  [
    'dontAsk turns ask into deny',
    { tool: 'Bash', input: bash('npm publish'), mode: 'dontAsk', expected: 'deny', explains: /dontAsk/ },
  ],
  [
    'dontAsk still runs read-only commands',
    { tool: 'Bash', input: bash('ls'), mode: 'dontAsk', expected: 'allow' },
  ],
  [
    'plan mode asks for anything not read-only, allow rules notwithstanding',
    {
      tool: 'Bash',
      input: bash('npm test'),
      mode: 'plan',
      rules: { allow: ['Bash(npm test)'] },
      expected: 'ask',
    },
  ],
  [
    'plan mode blocks edits',
    {
      tool: 'Edit',
      input: { file_path: '/srv/proj/a.ts' },
      mode: 'plan',
      rules: { allow: ['Edit(/**)'] },
      expected: 'ask',
    },
  ],
  ['more than one cd asks', { tool: 'Bash', input: bash('cd src && cd .. && ls'), expected: 'ask' }],
  [
    'cd plus git asks',
    {
      tool: 'Bash',
      input: bash('cd /tmp/other && git status'),
      rules: { allow: ['Bash(git status)', 'Bash(cd *)'] },
      expected: 'ask',
    },
  ],
  [
    'bare Bash allow lets anything unlisted through',
    { tool: 'Bash', input: bash('make deploy'), rules: { allow: ['Bash'] }, expected: 'allow' },
  ],
  [
    'auto mode drops Bash(*)',
    {
      tool: 'Bash',
      input: bash('make deploy'),
      mode: 'auto',
      rules: { allow: ['Bash(*)'] },
      expected: 'ask',
    },
  ],
  [
    'auto mode drops interpreter wildcards',
    {
      tool: 'Bash',
      input: bash('python -c "print(1)"'),
      mode: 'auto',
      rules: { allow: ['Bash(python *)'] },
      expected: 'ask',
    },
  ],
  [
    'too many subcommands: deny still found at position 51',
    {
      tool: 'Bash',
      input: bash(`${'true && '.repeat(50)}curl https://x.example`),
      rules: { allow: ['Bash(true)'], deny: ['Bash(curl *)'] },
      expected: 'deny',
    },
  ],
  [
    'too many subcommands otherwise ask',
    {
      tool: 'Bash',
      input: bash(`${'true && '.repeat(55)}true`),
      rules: { allow: ['Bash(true)'] },
      expected: 'ask',
    },
  ],
  [
    'long command asks',
    {
      tool: 'Bash',
      input: bash(`echo ${'a'.repeat(10_001)}`),
      rules: { allow: ['Bash(echo *)'] },
      expected: 'ask',
    },
  ],
  [
    'reading a denied file through cat is denied',
    {
      tool: 'Bash',
      input: bash('cat .env'),
      rules: { deny: ['Read(./.env)'] },
      expected: 'deny',
      explains: /Read\(\.\/\.env\)/,
    },
  ],
  [
    'reading through $HOME is checked against ~ rules',
    {
      tool: 'Bash',
      input: bash('cat $HOME/.ssh/id_rsa'),
      rules: { deny: ['Read(~/.ssh/**)'] },
      expected: 'deny',
    },
  ],
  [
    'writing a denied file through a redirect is denied',
    {
      tool: 'Bash',
      input: bash('echo x > src/gen.ts'),
      rules: { deny: ['Edit(./src/gen.ts)'] },
      expected: 'deny',
    },
  ],
  // Path rules.
  [
    'read inside the project',
    { tool: 'Read', input: { file_path: '/srv/proj/README.md' }, expected: 'allow' },
  ],
  [
    'read outside the project asks',
    {
      tool: 'Read',
      input: { file_path: '/etc/hosts' },
      expected: 'ask',
      explains: /outside the working directories/,
    },
  ],
  [
    'read in an additional directory',
    { tool: 'Read', input: { file_path: '/srv/shared/x' }, expected: 'allow' },
  ],
  [
    'sibling with a shared prefix is not inside',
    { tool: 'Read', input: { file_path: '/srv/proj2/secret' }, expected: 'ask' },
  ],
  [
    '//abs rule',
    {
      tool: 'Read',
      input: { file_path: '/etc/hosts' },
      rules: { allow: ['Read(//etc/**)'] },
      expected: 'allow',
    },
  ],
  [
    '~/ rule',
    {
      tool: 'Read',
      input: { file_path: '/home/user/.ssh/id_rsa' },
      rules: { deny: ['Read(~/.ssh/**)'] },
      expected: 'deny',
    },
  ],
  [
    '/x rule is relative to the project root',
    {
      tool: 'Edit',
      input: { file_path: '/srv/proj/src/a.ts' },
      rules: { allow: ['Edit(/src/**)'] },
      expected: 'allow',
    },
  ],
  [
    '/x rule does not mean the filesystem root',
    { tool: 'Edit', input: { file_path: '/src/a.ts' }, rules: { allow: ['Edit(/src/**)'] }, expected: 'ask' },
  ],
  [
    'bare file name denies at any depth',
    {
      tool: 'Read',
      input: { file_path: '/srv/proj/a/b/.env' },
      rules: { deny: ['Read(.env)'] },
      expected: 'deny',
    },
  ],
  [
    'deny ignores case',
    {
      tool: 'Read',
      input: { file_path: '/srv/proj/.ENV' },
      rules: { deny: ['Read(./.env)'] },
      expected: 'deny',
    },
  ],
  [
    'Read deny also blocks Write',
    {
      tool: 'Write',
      input: { file_path: '/srv/proj/.env' },
      mode: 'acceptEdits',
      rules: { deny: ['Read(./.env)'] },
      expected: 'deny',
    },
  ],
  [
    'Edit allow also grants Read',
    {
      tool: 'Read',
      input: { file_path: '/opt/data/x' },
      rules: { allow: ['Edit(//opt/data/**)'] },
      expected: 'allow',
    },
  ],
  [
    'Read deny covers Grep on the directory',
    {
      tool: 'Grep',
      input: { pattern: 'x', path: '/srv/proj/secrets' },
      rules: { deny: ['Read(./secrets/**)'] },
      expected: 'deny',
    },
  ],
  [
    'acceptEdits allows edits inside',
    { tool: 'Edit', input: { file_path: '/srv/proj/src/a.ts' }, mode: 'acceptEdits', expected: 'allow' },
  ],
  [
    'acceptEdits asks for protected paths',
    {
      tool: 'Write',
      input: { file_path: '/srv/proj/.efferent/settings.json' },
      mode: 'acceptEdits',
      expected: 'ask',
      explains: /protected/,
    },
  ],
  [
    'allow rules do not pre-approve protected paths',
    {
      tool: 'Edit',
      input: { file_path: '/srv/proj/.git/config' },
      rules: { allow: ['Edit(/**)'] },
      expected: 'ask',
    },
  ],
  [
    'bypass still asks for protected paths',
    { tool: 'Write', input: { file_path: '/home/user/.bashrc' }, mode: 'bypassPermissions', expected: 'ask' },
  ],
  [
    'default mode asks for edits',
    { tool: 'Edit', input: { file_path: '/srv/proj/src/a.ts' }, expected: 'ask' },
  ],
  ['NUL bytes in a path ask', { tool: 'Read', input: { file_path: '/srv/proj/a\u0000b' }, expected: 'ask' }],
  [
    '/proc/self/root reaches the denied file',
    {
      tool: 'Read',
      input: { file_path: '/proc/self/root/srv/proj/.env' },
      rules: { deny: ['Read(./.env)'] },
      expected: 'deny',
    },
  ],
  // URLs, agents, MCP, parameters, hooks and the tool's own answer.
  [
    'domain allow',
    {
      tool: 'WebFetch',
      input: { url: 'https://docs.example.com/x' },
      rules: { allow: ['WebFetch(domain:*.example.com)'] },
      expected: 'allow',
    },
  ],
  [
    'userinfo does not fool the domain check',
    {
      tool: 'WebFetch',
      input: { url: 'https://example.com@evil.com/' },
      rules: { allow: ['WebFetch(domain:example.com)'] },
      expected: 'ask',
    },
  ],
  [
    'domain deny with trailing dot',
    {
      tool: 'WebFetch',
      input: { url: 'https://evil.com./' },
      rules: { deny: ['WebFetch(domain:evil.com)'] },
      expected: 'deny',
    },
  ],
  [
    'Agent(type) deny',
    {
      tool: 'Agent',
      input: { subagent_type: 'Explore' },
      rules: { deny: ['Agent(Explore)'] },
      expected: 'deny',
    },
  ],
  [
    'legacy Task rule denies Agent',
    { tool: 'Agent', input: { subagent_type: 'x' }, rules: { deny: ['Task'] }, expected: 'deny' },
  ],
  [
    'MCP server rule',
    { tool: 'mcp__github__create_issue', input: {}, rules: { allow: ['mcp__github'] }, expected: 'allow' },
  ],
  [
    'MCP server glob deny',
    {
      tool: 'mcp__github__create_issue',
      input: {},
      rules: { allow: ['mcp__github__*'], deny: ['mcp__*'] },
      expected: 'deny',
    },
  ],
  [
    'parameter rule in deny',
    {
      tool: 'Bash',
      input: { command: 'sleep 100', run_in_background: true },
      rules: { allow: ['Bash'], deny: ['Bash(run_in_background:true)'] },
      expected: 'deny',
    },
  ],
  [
    'parameter rule ignored in allow',
    {
      tool: 'Agent',
      input: { subagent_type: 'x', model: 'opus' },
      rules: { allow: ['Agent(model:opus)'] },
      expected: 'ask',
    },
  ],
  [
    'hook deny wins',
    {
      tool: 'Read',
      input: { file_path: '/srv/proj/a' },
      hook: { behavior: 'deny', reason: 'no', hook: 'guard.sh' },
      expected: 'deny',
      explains: /guard\.sh/,
    },
  ],
  [
    'hook allow does not override a deny rule',
    {
      tool: 'Bash',
      input: bash('rm -rf dist'),
      rules: { deny: ['Bash(rm *)'] },
      hook: { behavior: 'allow' },
      expected: 'deny',
    },
  ],
  [
    'hook allow does not override an ask rule',
    {
      tool: 'Bash',
      input: bash('git push'),
      rules: { ask: ['Bash(git push *)'] },
      hook: { behavior: 'allow' },
      expected: 'ask',
    },
  ],
  [
    'hook allow settles an otherwise-asked call',
    { tool: 'Bash', input: bash('npm publish'), hook: { behavior: 'allow' }, expected: 'allow' },
  ],
  [
    'hook allow cannot approve a critical removal',
    { tool: 'Bash', input: bash('rm -rf /'), hook: { behavior: 'allow' }, expected: 'ask' },
  ],
  [
    'hook ask forces a prompt',
    { tool: 'Read', input: { file_path: '/srv/proj/a' }, hook: { behavior: 'ask' }, expected: 'ask' },
  ],
  [
    'tool deny',
    {
      tool: 'Read',
      input: { file_path: '/srv/proj/a' },
      toolResult: { behavior: 'deny', message: 'blocked device' },
      expected: 'deny',
    },
  ],
  ['tool allow', { tool: 'TodoWrite', input: {}, toolResult: { behavior: 'allow' }, expected: 'allow' }],
  ['unknown tool asks', { tool: 'Mystery', input: {}, expected: 'ask' }],
  ['tool-wide deny', { tool: 'WebSearch', input: {}, rules: { deny: ['WebSearch'] }, expected: 'deny' }],
  ['read-only tool without a target runs', { tool: 'WebSearch', input: {}, expected: 'allow' }],
];

describe('evaluatePermission', () => {
  it.each(table)('%s', (_name, row) => {
    const result = decide(row);
    expect(result.behavior, JSON.stringify(result, null, 1)).toBe(row.expected);
    expect(result.trace.length).toBeGreaterThan(0);
    if (row.expected !== 'allow') expect(result.message).toMatch(/\.$/);
    if (row.explains) expect(`${result.message ?? ''} ${JSON.stringify(result.trace)}`).toMatch(row.explains);
  });

  it('is deterministic', () => {
    for (const [, row] of table) expect(decide(row)).toEqual(decide(row));
  });

  it('names the rule and its file in the deny message', () => {
    const result = decide({
      tool: 'Bash',
      input: bash('rm -rf build'),
      rules: { deny: ['Bash(rm *)'] },
      expected: 'deny',
    });
    expect(result.message).toBe(
      'Permission to run `rm -rf build` was denied: `rm -rf build` matches rule Bash(rm *) in .efferent/settings.json. Do not retry it; ask the user or choose another approach.',
    );
    expect(result.trace[0]).toMatchObject({ stage: 'rule', outcome: 'deny', rule: 'Bash(rm *)' });
  });

  it('traces both the subcommand a rule allowed and the one that asked', () => {
    const result = decide({
      tool: 'Bash',
      input: bash('git status && rm -rf build'),
      rules: { allow: ['Bash(git *)'] },
      expected: 'ask',
    });
    expect(result.trace).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stage: 'rule', outcome: 'allow', rule: 'Bash(git *)' }),
        expect.objectContaining({ outcome: 'ask', detail: expect.stringContaining('build') }),
      ]),
    );
  });

  it('suggests at most five rules for a compound command', () => {
    const result = decide({
      tool: 'Bash',
      input: bash('a1 x; a2 x; a3 x; a4 x; a5 x; a6 x; a7 x'),
      expected: 'ask',
    });
    expect(result.suggestions?.length).toBe(5);
    expect(result.suggestions?.[0]).toEqual({ toolName: 'Bash', ruleContent: 'a1 x *', behavior: 'allow' });
  });
});

describe('evaluatePermission on a real filesystem', () => {
  let root: string;
  let workspace: Workspace;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-eval-')));
    const project = join(root, 'proj');
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(join(root, 'home', '.ssh'), { recursive: true });
    writeFileSync(join(root, 'home', '.ssh', 'id_rsa'), 'key');
    writeFileSync(join(project, '.env'), 'SECRET=1');
    symlinkSync(join(root, 'home', '.ssh'), join(project, 'keys'));
    symlinkSync(join(project, '.env'), join(project, 'src', 'env.txt'));
    symlinkSync(join(root, 'outside'), join(project, 'escape'));
    symlinkSync(join(root, 'home', '.bashrc'), join(project, 'src', 'dangling.ts'));
    workspace = createWorkspace({
      cwd: project,
      projectRoot: project,
      home: join(root, 'home'),
      additionalDirectories: [],
    });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('denies through a symlinked directory when the target matches a deny rule', () => {
    expect(
      decide(
        {
          tool: 'Read',
          input: { file_path: join(workspace.cwd, 'keys', 'id_rsa') },
          rules: { deny: ['Read(~/.ssh/**)'] },
          expected: 'deny',
        },
        workspace,
      ).behavior,
    ).toBe('deny');
  });
  it('denies a link whose target is denied, and allows only when link and target both match', () => {
    expect(
      decide(
        {
          tool: 'Read',
          input: { file_path: join(workspace.cwd, 'src', 'env.txt') },
          rules: { deny: ['Read(./.env)'] },
          expected: 'deny',
        },
        workspace,
      ).behavior,
    ).toBe('deny');
    expect(
      decide(
        {
          tool: 'Read',
          input: { file_path: join(workspace.cwd, 'src', 'env.txt') },
          rules: { allow: ['Read(./src/**)'] },
          expected: 'allow',
        },
        workspace,
      ).behavior,
    ).toBe('allow');
    expect(
      decide(
        {
          tool: 'Edit',
          input: { file_path: join(workspace.cwd, 'src', 'env.txt') },
          rules: { allow: ['Edit(./src/**)'] },
          expected: 'allow',
        },
        workspace,
      ).behavior,
    ).toBe('ask');
  });
  it('treats a new file under a symlinked directory that leaves the project as outside', () => {
    expect(
      decide(
        {
          tool: 'Write',
          input: { file_path: join(workspace.cwd, 'escape', 'new.txt') },
          mode: 'acceptEdits',
          expected: 'ask',
        },
        workspace,
      ).behavior,
    ).toBe('ask');
  });
  it('follows a dangling symlink to where it points', () => {
    const result = decide(
      {
        tool: 'Edit',
        input: { file_path: join(workspace.cwd, 'src', 'dangling.ts') },
        mode: 'acceptEdits',
        expected: 'ask',
      },
      workspace,
    );
    expect(result.behavior).toBe('ask');
    expect(result.message).toMatch(/bashrc/);
  });
  it('checks bash reads through symlinks too', () => {
    expect(
      decide(
        {
          tool: 'Bash',
          input: bash('cat keys/id_rsa'),
          rules: { deny: ['Read(~/.ssh/**)'] },
          expected: 'deny',
        },
        workspace,
      ).behavior,
    ).toBe('deny');
  });
  it("reads a program's command and script names as names: no file of that name is read", () => {
    // `status` and `build` are links to the denied key; git and npm look the words up among their
    // commands and scripts and never open them, while cat opens its argument.
    symlinkSync(join(workspace.home, '.ssh', 'id_rsa'), join(workspace.cwd, 'status'));
    symlinkSync(join(workspace.home, '.ssh', 'id_rsa'), join(workspace.cwd, 'build'));
    const rules = {
      allow: ['Bash(git status)', 'Bash(npm run *)', 'Bash(cat *)'],
      deny: ['Read(~/.ssh/**)'],
    };
    const behaviour = (command: string) =>
      decide({ tool: 'Bash', input: bash(command), rules, expected: 'allow' }, workspace).behavior;
    expect(behaviour('git status')).toBe('allow');
    expect(behaviour('npm run build')).toBe('allow');
    for (const command of ['cat status', 'cat build', 'npm run build -- status', 'git -C . status status'])
      expect(behaviour(command), command).toBe('deny');
    // The names are still matched as written against read deny rules (over-matching is harmless).
    expect(
      decide(
        {
          tool: 'Bash',
          input: bash('npm run build'),
          rules: { ...rules, deny: ['Read(./build)'] },
          expected: 'deny',
        },
        workspace,
      ).behavior,
    ).toBe('deny');
  });
});
