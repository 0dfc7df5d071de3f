/**
 * What the reaching-rules check costs (docs/decisions/security-reaching-rules.md): a recursive
 * search of a directory (`grep -rn TODO src`) under a read deny rule whose wildcards start above it
 * (`Read(*.key)`) makes the decision scan that directory for files the rule covers. Measured side by
 * side in one run on generated trees of 1,000, 5,000 and 20,000 entries: the decision with that
 * rule, the decision with a rule that cannot reach into `src` (`Read(./secrets/**)`, no scan), and
 * the search itself run by grep, the work the decision guards.
 * `npx tsx bench/search-scan.ts [--json] [--runs N]`
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildRules,
  createWorkspace,
  evaluatePermission,
  knownToolDeclarations,
  loadDefaultShellAnalyzer,
  type RuleSet,
} from '../src/permissions/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsAt = args.indexOf('--runs');
const runs = runsAt === -1 ? 15 : Number(args[runsAt + 1]);

const shell = await loadDefaultShellAnalyzer();
if (!shell) throw new Error('The shell analyser did not load; reinstall efferent.');

/** A project whose `src` holds `entries` files and folders, ten files a folder, a few `.key` among them. */
function project(entries: number): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-scan-')));
  let made = 0;
  for (let folder = 0; made < entries; folder++) {
    const directory = join(root, 'src', `m${folder % 40}`, `d${folder}`);
    mkdirSync(directory, { recursive: true });
    made++;
    for (let file = 0; file < 10 && made < entries; file++, made++)
      writeFileSync(join(directory, `f${file}.ts`), `// TODO ${folder}.${file}\nexport {};\n`);
  }
  return root;
}

function rules(deny: string, root: string): RuleSet {
  const origin = { source: 'projectSettings' as const, origin: 'bench', root };
  return {
    allow: buildRules(['Bash(grep *)'], 'allow', origin).rules,
    deny: buildRules([deny], 'deny', origin).rules,
    ask: [],
  };
}

const command = 'grep -rn TODO src';

/** Median microseconds of `runs` decisions of the search under `deny`. */
function decide(root: string, deny: string): { micros: number; behavior: string } {
  const workspace = createWorkspace({
    cwd: root,
    projectRoot: root,
    home: join(root, 'home'),
    additionalDirectories: [],
  });
  const input = { command };
  const declaration = knownToolDeclarations.Bash;
  if (!declaration) throw new Error('Bash is not a known tool.');
  const ruleSet = rules(deny, root);
  const once = () =>
    evaluatePermission({
      tool: { name: 'Bash', aliases: declaration.aliases ?? [] },
      input,
      target: declaration.target(input, root),
      readOnly: declaration.readOnly(input),
      mode: 'default',
      rules: ruleSet,
      workspace,
      shell,
    });
  const behavior = once().behavior;
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    once();
    times.push((performance.now() - started) * 1000);
  }
  return { micros: median(times), behavior };
}

function searchItself(root: string): number {
  const times: number[] = [];
  for (let run = 0; run < Math.max(3, Math.ceil(runs / 3)); run++) {
    const started = performance.now();
    spawnSync('grep', ['-rn', 'TODO', 'src'], { cwd: root, stdio: 'ignore' });
    times.push((performance.now() - started) * 1000);
  }
  return median(times);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const rows = [];
for (const entries of (process.env.SCAN_SIZES ?? '1000,5000,20000').split(',').map(Number)) {
  const root = project(entries);
  try {
    const scanning = decide(root, 'Read(*.key)');
    const plain = decide(root, 'Read(./secrets/**)');
    const search = searchItself(root);
    rows.push({
      entries,
      scanMicros: Math.round(scanning.micros),
      scanBehavior: scanning.behavior,
      noScanMicros: Math.round(plain.micros),
      grepMicros: Math.round(search),
      scanOverGrep: Number((scanning.micros / search).toFixed(2)),
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (json) process.stdout.write(`${JSON.stringify({ command, runs, rows })}\n`);
else {
  process.stdout.write(`\`${command}\`, median of ${runs} decisions per row:\n`);
  for (const row of rows)
    process.stdout.write(
      `  ${String(row.entries).padStart(6)} entries: decision with Read(*.key) ${row.scanMicros} µs (${row.scanBehavior}), ` +
        `with Read(./secrets/**) ${row.noScanMicros} µs; grep itself ${row.grepMicros} µs; ` +
        `the scan is ${row.scanOverGrep}× the search\n`,
    );
}
