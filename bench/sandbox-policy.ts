/**
 * The host-side cost of preparing one sandboxed call: building the bwrap command line (git
 * directory allowlist, covers for missing protected names, the bounded search for nested
 * repositories), with Read deny rules the bounded walk for paths to hide, and the repository guard
 * around each call (noting repository metadata before, judging what changed after): its first,
 * full walk and its usual cost, a refresh by change time before and after.
 * `npx tsx bench/sandbox-policy.ts [--json] [--runs N]`
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolUseContext } from '../src/core/index.ts';
import { resetRepositoryGuard, startRepositoryGuard } from '../src/sandbox/repository-guard.ts';
import { hiddenPathsFor } from '../src/tools/shared/process/hidden-paths.ts';
import { buildSandboxInvocation } from '../src/tools/shared/process/sandbox.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsIndex = args.indexOf('--runs');
const runs = runsIndex === -1 ? 50 : Number(args[runsIndex + 1]);

const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-bench-sandbox-')));
const session = join(base, 'session');
mkdirSync(session);

function project(name: string, folders: number): string {
  const root = join(base, name);
  mkdirSync(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  for (let index = 0; index < folders; index++) {
    const folder = join(root, `pkg${index % 50}`, `dir${index}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'file.ts'), 'export {};\n');
  }
  return root;
}

function measure(label: string, action: () => void): { label: string; medianMs: number; p90Ms: number } {
  for (let index = 0; index < 3; index++) action();
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    action();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { label, medianMs: at(0.5), p90Ms: at(0.9) };
}

const results = [];
for (const [name, folders] of [
  ['small repository', 10],
  ['repository with 2,000 folders', 2000],
  ['repository with 20,000 folders', 20000],
] as const) {
  const root = project(name.replaceAll(' ', '-').replaceAll(',', ''), folders);
  const policy = {
    writableDirectories: [root],
    sessionDirectory: session,
    homeDirectory: base,
    allowNetwork: false,
  };
  results.push(
    measure(`build invocation, ${name}`, () => buildSandboxInvocation(policy, root, ['true']).cleanup()),
  );
  const context = createToolUseContext({
    cwd: root,
    sessionDir: session,
    env: { HOME: base },
    isReadDenied: (path) => path.endsWith('/.env'),
  });
  results.push(measure(`hidden paths for Read deny rules, ${name}`, () => hiddenPathsFor(context)));
  results.push(
    measure(`repository guard, first call (full walk), ${name}`, () => {
      resetRepositoryGuard();
      startRepositoryGuard([root]).finish();
    }),
  );
  results.push(
    measure(`repository guard, each later call, ${name}`, () => startRepositoryGuard([root]).finish()),
  );
}
rmSync(base, { recursive: true, force: true });

if (json) console.log(JSON.stringify(results, null, 2));
else
  for (const result of results)
    console.log(
      `${result.label}: median ${result.medianMs.toFixed(2)} ms, p90 ${result.p90Ms.toFixed(2)} ms`,
    );
