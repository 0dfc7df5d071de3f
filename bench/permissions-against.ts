/**
 * This checkout against another checkout of efferent (`--against DIR`, e.g. a `git worktree` of the
 * commit before a change), in one process, calls interleaved one by one so machine noise hits both
 * alike: permission decisions (everyday calls plus the security corpus, 1,000 rules, no disk) and
 * Read and Bash calls through the pipeline (1,000 rules, two in-process hooks, a real temporary
 * project, the tools' final step replaced by a constant result). Prints each side's p50 and the
 * median of the per-call ratios (this / other); on a loaded machine the ratio is what carries.
 * `npx tsx bench/permissions-against.ts --against DIR [--calls N]`
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const againstAt = args.indexOf('--against');
const against = againstAt === -1 ? undefined : args[againstAt + 1];
if (against === undefined) {
  // `npm run bench` with no names runs every bench: without a checkout to compare with, skip.
  process.stdout.write(
    'Skipped: give the other checkout with --against DIR (a directory holding src/ of efferent).\n',
  );
  process.exit(0);
}
const callsAt = args.indexOf('--calls');
const pipelineCalls = callsAt === -1 ? 2000 : Number(args[callsAt + 1]);
const here = resolve(import.meta.dirname, '..');
const project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-against-')));
mkdirSync(join(project, 'src'), { recursive: true });
for (let index = 0; index < 50; index++) writeFileSync(join(project, `src/file${index}.ts`), 'export {};\n');

// biome-ignore lint/suspicious/noExplicitAny: modules of another checkout are loaded by path.
type Loose = any;

/** 1,000 rules shaped like a real settings file: mostly command prefixes, then paths, then denials. */
function ruleTexts(): { allow: string[]; deny: string[]; ask: string[] } {
  const words = ['git', 'npm', 'make', 'cargo', 'docker', 'kubectl', 'python3', 'node', 'yarn', 'pnpm'];
  const allow = ['Bash(npm run *)', 'Bash(npm test)', 'Bash(git status)', 'Bash(git diff *)'];
  const deny = ['Bash(rm -rf *)', 'Read(./secrets/**)', 'Read(~/.ssh/**)', 'Read(./.env)'];
  const ask = ['Bash(git push *)'];
  for (let index = 0; allow.length + deny.length + ask.length < 1000; index++) {
    const word = words[index % words.length];
    const slot = index % 10;
    if (slot < 6) allow.push(`Bash(${word} task${index} *)`);
    else if (slot === 6) deny.push(`Bash(${word} forbidden${index} *)`);
    else if (slot === 7) allow.push(`Read(./docs/set${index}/**)`);
    else if (slot === 8) allow.push(`Edit(/src/module${index}/**)`);
    else deny.push(`Read(./private/part${index}/**)`);
  }
  return { allow, deny, ask };
}

const everyday = [
  'git status',
  'git diff src/app.ts',
  'git add src/app.ts && git commit -m "fix parser"',
  'npm test',
  'npm run lint -- --fix',
  'ls -la src',
  'cat README.md',
  'grep -rn "TODO" src',
  'find src -name "*.test.ts"',
  'cd packages/web && npm test',
];

interface Side {
  decide: (index: number) => void;
  decisions: number;
  read: (index: number) => Promise<void>;
  bash: (index: number) => Promise<void>;
}

async function load(root: string): Promise<Side> {
  const module = (path: string): Promise<Loose> => import(join(root, 'src', path));
  const permissions = await module('permissions/index.ts');
  const { createToolUseContext } = await module('core/index.ts');
  const { createHookRunner } = await module('hooks/index.ts');
  const { createResultBudget } = await module('budget/index.ts');
  const { createToolRunner } = await module('pipeline/index.ts');
  const { createCapturingTelemetry } = await module('telemetry/index.ts');
  const { BashTool } = await module('tools/bash/bash.ts');
  const { ReadTool } = await module('tools/read/read.ts');
  const texts = ruleTexts();
  const rulesFor = (root: string) => {
    const origin = { source: 'projectSettings', origin: 'bench', root };
    return {
      allow: permissions.buildRules(texts.allow, 'allow', origin).rules,
      deny: permissions.buildRules(texts.deny, 'deny', origin).rules,
      ask: permissions.buildRules(texts.ask, 'ask', origin).rules,
    };
  };
  const shell = await permissions.loadDefaultShellAnalyzer();

  // Decisions without a disk, as bench/permissions.ts makes them.
  const workspace = permissions.createWorkspace({
    cwd: '/srv/proj',
    projectRoot: '/srv/proj',
    home: '/home/user',
    additionalDirectories: [],
    realpath: permissions.lexicalRealpath,
  });
  workspace.inspectGit = () => ({ ok: true, detail: 'not inspected in the benchmark' });
  const corpus = JSON.parse(readFileSync(join(here, 'test/corpus/security-sample.json'), 'utf8')) as Array<{
    tool: string;
    cwd: string;
    mode: string;
    input: Record<string, unknown>;
  }>;
  const calls = [
    ...everyday.map((command) => ({ tool: 'Bash', mode: 'default', input: { command } })),
    { tool: 'Read', mode: 'default', input: { file_path: '/srv/proj/src/app.ts' } },
    { tool: 'Read', mode: 'default', input: { file_path: '/home/user/.ssh/id_rsa' } },
    { tool: 'Edit', mode: 'default', input: { file_path: '/srv/proj/src/module8/index.ts' } },
    ...corpus.filter((call) => call.cwd === '/srv/proj'),
  ];
  const rules = rulesFor('/srv/proj');
  const analyses = new Map<string, unknown>();
  const prepared = {
    ...shell,
    analyzeCommand: (command: string, options: unknown) => {
      if (!analyses.has(command)) analyses.set(command, shell.analyzeCommand(command, options));
      return analyses.get(command);
    },
  };
  const requests = calls.map((call) => {
    const declaration = permissions.knownToolDeclarations[call.tool];
    return {
      tool: { name: call.tool, aliases: [] },
      input: call.input,
      target: declaration ? declaration.target(call.input, workspace.cwd) : { kind: 'none' },
      readOnly: declaration?.readOnly(call.input) ?? null,
      mode: call.mode,
      rules,
      workspace,
      shell: prepared,
    };
  });

  // Calls through the pipeline on the real disk.
  const engine = permissions.createPermissionResolver({ rules: rulesFor(project), home: project, shell });
  const hooks = createHookRunner({
    callbacks: [
      { event: 'PreToolUse', callback: () => ({ hookSpecificOutput: { additionalContext: 'seen' } }) },
      { event: 'PostToolUse', callback: () => ({ hookSpecificOutput: { additionalContext: 'ok' } }) },
    ],
  });
  const readFile = { filePath: join(project, 'notes.txt'), content: 'x', numLines: 1, startLine: 1 };
  const readResult = { type: 'text', file: { ...readFile, totalLines: 1, notes: [] } };
  const bashResult = { stdout: 'ok', stderr: '', exitCode: 0, interrupted: false, isImage: false };
  const dryRead = { ...ReadTool, call: async () => ({ data: readResult }) };
  const dryBash = {
    ...BashTool,
    prepare: (input: unknown, context: unknown, reuse: unknown) => ({
      ...BashTool.prepare?.(input, context, reuse),
      call: async () => ({ data: bashResult }),
    }),
  };
  const context = createToolUseContext({
    cwd: project,
    sessionDir: join(project, 'session'),
    env: { HOME: project, PATH: process.env.PATH ?? '' },
  });
  const runner = createToolRunner({
    tools: [dryRead, dryBash],
    resolvePermission: engine,
    hooks,
    budget: createResultBudget({ sessionDir: join(project, 'session') }),
    telemetry: createCapturingTelemetry(),
  });
  const drive = async (name: string, input: Record<string, unknown>, index: number) => {
    for await (const event of runner({ type: 'tool_use', id: `toolu_${index}`, name, input }, context))
      if (event.type === 'result' && event.result.isError) throw new Error(String(event.result.content));
  };
  return {
    decide: (index) => permissions.evaluatePermission(requests[index % requests.length]),
    decisions: requests.length,
    read: (index) => drive('Read', { file_path: join(project, `src/file${index % 50}.ts`) }, index),
    bash: (index) => drive('Bash', { command: `npm run build --workspace pkg${index % 50}` }, index),
  };
}

const sides = { this: await load(here), other: await load(resolve(against)) };
const now = () => Number(process.hrtime.bigint()) / 1000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function compare(label: string, count: number, run: (side: Side, index: number) => unknown) {
  const times = { this: [] as number[], other: [] as number[] };
  const ratios: number[] = [];
  for (let index = 0; index < count + 200; index++) {
    const order = index % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const);
    const took = { this: 0, other: 0 };
    for (const name of order) {
      const started = now();
      await run(sides[name], index);
      took[name] = now() - started;
    }
    if (index < 200) continue; // warm-up
    times.this.push(took.this);
    times.other.push(took.other);
    ratios.push(took.this / took.other);
  }
  process.stdout.write(
    `${label.padEnd(34)} this p50 ${median(times.this).toFixed(1).padStart(8)} µs  other p50 ${median(times.other).toFixed(1).padStart(8)} µs  median ratio ${median(ratios).toFixed(3)}\n`,
  );
}

process.stdout.write(`this checkout: ${here}\nagainst:       ${resolve(against)}\n`);
await compare('decision, 1,000 rules (no disk)', sides.this.decisions * 10, (side, index) =>
  side.decide(index),
);
await compare('Read call, 1,000 rules, 2 hooks', pipelineCalls, (side, index) => side.read(index));
await compare('Bash call, 1,000 rules, 2 hooks', pipelineCalls, (side, index) => side.bash(index));
rmSync(project, { recursive: true, force: true });
