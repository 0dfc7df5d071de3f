/**
 * `npm run bench -- [name ...] [--json] [flags ...]`: runs the named benchmarks (all when none is
 * named), each in its own process so one cannot warm up or slow down another. Names come first;
 * everything from the first flag on (`--size-mb 16`, values included) is passed to each benchmark.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter(
    (file) =>
      file.endsWith('.ts') && !file.startsWith('.') && file !== 'run.ts' && !file.endsWith('.test.ts'),
  )
  .map((file) => file.slice(0, -3))
  .sort();

const args = process.argv.slice(2);
const firstFlag = args.findIndex((arg) => arg.startsWith('-'));
const names = firstFlag === -1 ? args : args.slice(0, firstFlag);
const flags = firstFlag === -1 ? [] : args.slice(firstFlag);
const unknown = names.filter((name) => !existsSync(join(here, `${name}.ts`)));
if (unknown.length > 0) {
  process.stderr.write(`Unknown benchmark: ${unknown.join(', ')}. Available: ${available.join(', ')}\n`);
  process.exit(2);
}

let failed = false;
for (const name of names.length > 0 ? names : available) {
  if (!flags.includes('--json')) process.stdout.write(`\n== ${name} ==\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`), ...flags], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
