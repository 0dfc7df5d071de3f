/**
 * The package as a user installs it: installed size with the default features (the packed tarball
 * plus the production dependency closure, optional peers left out) and cold `import('efferent')`
 * against `node -e 0` and a cold `import('ai')`, side by side in one run, interleaved.
 * Targets: installed ≤ 60 MB; cold import ≤ 150 ms on an idle machine (the ratio to `node -e 0`
 * is the load-independent number). Needs `npm run build` first (it imports the built entry, dist/bundle/index.js).
 * `npx tsx bench/package.ts [--json] [--runs N]`
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsIndex = args.indexOf('--runs');
const runs = runsIndex === -1 ? 11 : Number(args[runsIndex + 1]);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');

function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The production closure from the hoisted node_modules: dependencies and required peers, not optional peers. */
function closure(manifest: Manifest, seen = new Set<string>()): Set<string> {
  const optionalPeers = new Set(
    Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name),
  );
  const names = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
  ];
  for (const name of names) {
    if (seen.has(name) || !existsSync(join(modules, name, 'package.json'))) continue;
    seen.add(name);
    closure(JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as Manifest, seen);
  }
  return seen;
}

const pack = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
) as Array<{ unpackedSize: number; size: number; entryCount: number }>;
const own = pack[0];
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const dependencies = [...closure(manifest)];
const bySize = dependencies
  .map((name) => ({ name, bytes: sizeOf(join(modules, name)) }))
  .sort((a, b) => b.bytes - a.bytes);
const installed = (own?.unpackedSize ?? 0) + bySize.reduce((sum, entry) => sum + entry.bytes, 0);

// The file `import('efferent')` loads: the `import` condition of the package's `.` export.
const entry = join(
  root,
  (manifest as Manifest & { exports: { '.': { import: string } } }).exports['.'].import,
);
if (!existsSync(entry)) {
  process.stderr.write('bench/package.ts imports dist/: run `npm run build` first.\n');
  process.exit(1);
}
const cases: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  "import('efferent')": ['--input-type=module', '-e', `await import(${JSON.stringify(entry)})`],
  "import('ai')": ['--input-type=module', '-e', "await import('ai')"],
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, argv] of Object.entries(cases)) {
    const started = performance.now();
    const result = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
    times[name]?.push(performance.now() - started);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const base = median(times['node -e 0'] ?? []);
const imports = Object.fromEntries(
  Object.entries(times).map(([name, values]) => [
    name,
    { medianMs: median(values), importMs: median(values) - base },
  ]),
);
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

if (json) {
  process.stdout.write(
    `${JSON.stringify({ installedMB: mb(installed), tarballMB: mb(own?.size ?? 0), dependencies: bySize.map((d) => ({ name: d.name, mb: mb(d.bytes) })), imports }, null, 2)}\n`,
  );
} else {
  process.stdout.write(
    `installed with default features: ${mb(installed)} MB (target ≤ 60): efferent ${mb(own?.unpackedSize ?? 0)} MB unpacked + ${dependencies.length} packages\n`,
  );
  for (const dependency of bySize.slice(0, 8))
    process.stdout.write(`  ${dependency.name}: ${mb(dependency.bytes)} MB\n`);
  for (const [name, value] of Object.entries(imports)) {
    process.stdout.write(
      `${name.padEnd(20)} median ${value.medianMs.toFixed(0)} ms, ${value.importMs.toFixed(0)} ms over node -e 0\n`,
    );
  }
  process.stdout.write('cold import target: ≤ 150 ms over node -e 0 on an idle machine\n');
}
