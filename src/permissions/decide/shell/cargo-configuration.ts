import { dirname, join } from 'node:path';
import { readOwnFileSync } from '../../../core/index.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import type { Verdict } from '../verdict.ts';
import { projectCodeAsk } from './subcommand-checks.ts';

/**
 * Cargo and the rustup proxies take programs from files of the directory they run in and its
 * parents: `.cargo/config.toml` (or `.cargo/config`) names the compiler cargo runs even to answer
 * `cargo metadata` or `cargo tree` (`build.rustc`, `build.rustc-wrapper`…), and
 * `rust-toolchain.toml` (or `rust-toolchain`) can point rustup at a toolchain directory (`path`),
 * whose `cargo`/`rustc` then run for any call, `cargo --version` included. A rule for a cargo
 * command that builds nothing (`Bash(cargo metadata:*)`, `Bash(cargo tree:*)`,
 * `Bash(cargo --version)`) did not approve those programs, so such a call asks when the files hold
 * one. Commands that build (`build`, `check`, `test`, `run`, `clippy`…) run the project's build
 * scripts anyway and are left to their rules. The user's own `~/.cargo` is not read.
 */

const rustupProxies = new Set([
  'cargo',
  'rustc',
  'rustdoc',
  'rustfmt',
  'cargo-fmt',
  'cargo-clippy',
  'clippy-driver',
  'rust-analyzer',
  'rust-gdb',
  'rust-lldb',
]);

/** Cargo subcommands that compile the project or run its build scripts: the rule approved that code. */
const buildingSubcommands = new Set([
  'build',
  'b',
  'check',
  'c',
  'test',
  't',
  'run',
  'r',
  'bench',
  'clippy',
  'doc',
  'd',
  'install',
  'package',
  'publish',
  'rustc',
  'rustdoc',
  'fix',
  'miri',
  'llvm-cov',
  'nextest',
  'tarpaulin',
  'expand',
]);

/** Cargo global options that take a value (the rest are flags). */
const cargoValueOptions = new Set([
  '--color',
  '-Z',
  '--config',
  '--manifest-path',
  '--target-dir',
  '-j',
  '--jobs',
  '-C',
]);

/**
 * Keys of cargo configuration that name a program a command that builds nothing still starts (the
 * compiler cargo asks for target information, a credential provider), or pull in another file.
 * Linkers and runners only run for builds and runs.
 */
const programKeys =
  /(?:^|[\s{,.])["']?(rustc|rustc-wrapper|rustc-workspace-wrapper|credential-provider|global-credential-providers|include)["']?\s*=/m;

/** `path = …` in a toolchain file: a local toolchain directory whose programs rustup runs. */
const toolchainPath = /(?:^|[\s{,])["']?path["']?\s*=/m;

/** The first word after cargo's global options (the subcommand), or undefined. */
function cargoSubcommand(argv: readonly string[]): string | undefined {
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word.startsWith('+')) continue;
    if (!word.startsWith('-')) return word;
    if (cargoValueOptions.has(word)) index++;
  }
  return undefined;
}

function readSmall(path: string): string | 'missing' | { refused: string } {
  const read = readOwnFileSync(path, { maxBytes: 262_144 });
  if (read.kind === 'missing') return 'missing';
  if (read.kind === 'refused') return { refused: read.reason };
  return read.text;
}

/** Why the Rust configuration of `directory` and its parents makes the call run a program it names. */
function rustConcern(directory: string, home: string, checkCargoConfig: boolean): string | undefined {
  let toolchainFound = false;
  for (let current = directory; ; current = dirname(current)) {
    if (!toolchainFound)
      for (const name of ['rust-toolchain', 'rust-toolchain.toml']) {
        const text = readSmall(join(current, name));
        if (text === 'missing') continue;
        toolchainFound = true;
        if (typeof text !== 'string') return `${text.refused}, so the toolchain it picks is not known`;
        if (toolchainPath.test(text))
          return `${join(current, name)} points rustup at a toolchain directory whose programs would run`;
        break;
      }
    if (checkCargoConfig && join(current, '.cargo') !== join(home, '.cargo'))
      for (const name of ['config.toml', 'config']) {
        const path = join(current, '.cargo', name);
        const text = readSmall(path);
        if (text === 'missing') continue;
        if (typeof text !== 'string') return `${text.refused}, so the programs cargo runs are not known`;
        const key = programKeys.exec(text);
        if (key) return `${path} sets ${key[1]}, a program cargo runs`;
      }
    if (dirname(current) === current) return undefined;
  }
}

/**
 * A Rust tool call about to be allowed asks when the configuration it reads names a program the
 * rule did not approve (see the module comment).
 */
export function cargoConfigurationBeforeAllow(
  subcommand: AnalyzedSubcommandLike,
  verdict: Verdict,
  mode: string,
  home: string,
): Verdict {
  if (verdict.behavior !== 'allow' || mode === 'bypassPermissions') return verdict;
  const program = subcommand.argv[0] ?? '';
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (!rustupProxies.has(name)) return verdict;
  const sub = name === 'cargo' ? cargoSubcommand(subcommand.argv) : undefined;
  // `cargo --version`/`-V`/`--list` start no compiler; a subcommand that builds was approved with its code.
  const checkCargoConfig = name === 'cargo' && sub !== undefined && !buildingSubcommands.has(sub);
  const concern =
    subcommand.cwd === null
      ? 'the directory it runs in is only known when it runs'
      : rustConcern(subcommand.cwd, home, checkCargoConfig);
  if (concern === undefined) return verdict;
  const reason = `the project's Rust configuration chooses the program: ${concern}`;
  return projectCodeAsk(reason);
}
