import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * The project's Rust configuration chooses programs (class `cargo-configuration`,
 * docs/decisions/security-cargo-configuration.md). Under `Bash(cargo metadata:*)` or
 * `Bash(cargo tree:*)`, `.cargo/config.toml`'s `build.rustc-wrapper` ran; under
 * `Bash(cargo --version)`, a `rust-toolchain.toml` `path` made rustup run the project's `cargo`.
 */

const hasCargo = spawnSync('cargo', ['--version']).status === 0;

const place = decisionPlace('efferent-cargo-config-', (made) => {
  writeFileSync(
    join(made.project, 'Cargo.toml'),
    '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n',
  );
  mkdirSync(join(made.project, 'src'));
  writeFileSync(join(made.project, 'src', 'main.rs'), 'fn main() {}\n');
  mkdirSync(join(made.project, 'crates', 'inner'), { recursive: true });
});

const marker = () => join(place.root, 'ran');

function writeWrapper(): string {
  const wrapper = join(place.project, 'w.sh');
  writeFileSync(wrapper, `#!/bin/sh\ntouch ${marker()}\nexec "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** Program-naming settings in each TOML spelling cargo accepts. */
const settings = (wrapper: string): Array<{ name: string; text: string }> => [
  { name: 'rustc-wrapper', text: `[build]\nrustc-wrapper = "${wrapper}"\n` },
  { name: 'rustc', text: `[build]\nrustc = "${wrapper}"\n` },
  { name: 'workspace wrapper', text: `[build]\nrustc-workspace-wrapper = "${wrapper}"\n` },
  { name: 'quoted key', text: `[build]\n"rustc-wrapper" = "${wrapper}"\n` },
  { name: 'dotted key', text: `build.rustc-wrapper = "${wrapper}"\n` },
  { name: 'inline table', text: `build = { rustc-wrapper = "${wrapper}" }\n` },
  { name: 'include', text: 'include = "other.toml"\n' },
  { name: 'credential provider', text: `[registry]\nglobal-credential-providers = ["${wrapper}"]\n` },
];

const placements = ['.cargo/config.toml', '.cargo/config', 'parent of the directory'] as const;

function plant(placement: (typeof placements)[number], text: string): () => void {
  const directory = join(place.project, '.cargo');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, placement === '.cargo/config' ? 'config' : 'config.toml');
  writeFileSync(file, text);
  return () => rmSync(directory, { recursive: true, force: true });
}

const commands = [
  'cargo metadata --format-version 1',
  'cargo tree',
  'cargo fmt --check',
  'cargo locate-project',
  'cargo -q tree',
  'cargo +stable metadata',
];
const rules = [
  'Bash(cargo metadata:*)',
  'Bash(cargo tree:*)',
  'Bash(cargo fmt:*)',
  'Bash(cargo locate-project)',
  'Bash(cargo:*)',
  'Bash(cd:*)',
];
const modes: PermissionMode[] = ['default', 'acceptEdits', 'dontAsk'];
const inPlace = (command: string, placement: (typeof placements)[number]) =>
  placement === 'parent of the directory' ? `cd crates/inner && ${command}` : command;

describe('cargo configuration: a rule for a cargo command that builds nothing does not run a program the project names (generated)', () => {
  it.skipIf(!hasCargo)(
    'real cargo metadata and tree run the wrapper; a toolchain path runs the project cargo (the attack is real)',
    () => {
      const wrapper = writeWrapper();
      const remove = plant('.cargo/config.toml', `[build]\nrustc-wrapper = "${wrapper}"\n`);
      for (const args of [
        ['metadata', '--offline', '--format-version', '1'],
        ['tree', '--offline'],
      ]) {
        rmSync(marker(), { force: true });
        spawnSync('cargo', args, { cwd: place.project, stdio: 'ignore', timeout: 60_000 });
        expect(existsSync(marker()), args.join(' ')).toBe(true);
      }
      remove();
      const toolchain = join(place.project, 'tc');
      mkdirSync(join(toolchain, 'bin'), { recursive: true });
      mkdirSync(join(toolchain, 'lib'), { recursive: true });
      writeFileSync(join(toolchain, 'bin', 'cargo'), `#!/bin/sh\ntouch ${marker()}\n`);
      chmodSync(join(toolchain, 'bin', 'cargo'), 0o755);
      writeFileSync(join(place.project, 'rust-toolchain.toml'), `[toolchain]\npath = "${toolchain}"\n`);
      rmSync(marker(), { force: true });
      spawnSync('cargo', ['--version'], { cwd: place.project, stdio: 'ignore', timeout: 60_000 });
      const ran = existsSync(marker());
      rmSync(join(place.project, 'rust-toolchain.toml'));
      rmSync(toolchain, { recursive: true });
      // Only where cargo is rustup's proxy.
      if (spawnSync('rustup', ['--version']).status === 0) expect(ran).toBe(true);
    },
  );

  it('never allows a non-building cargo call while the configuration names a program', async () => {
    const wrapper = join(place.project, 'w.sh');
    let count = 0;
    for (const setting of settings(wrapper))
      for (const placement of placements) {
        const remove = plant(placement, setting.text);
        try {
          for (const command of commands)
            for (const mode of modes) {
              const line = inPlace(command, placement);
              const result = await place.decide(line, { allow: rules }, mode);
              expect(result.behavior, `${setting.name} in ${placement}: ${line} (${mode})`).not.toBe('allow');
              count++;
            }
        } finally {
          remove();
        }
      }
    expect(count).toBe(8 * placements.length * commands.length * modes.length);
  });

  it('never allows a rustup proxy while a toolchain file points at a directory', async () => {
    const toolchainRules = [
      ...rules,
      'Bash(cargo --version)',
      'Bash(rustc --version)',
      'Bash(cargo build:*)',
      'Bash(rustfmt --version)',
    ];
    let count = 0;
    for (const file of ['rust-toolchain.toml', 'rust-toolchain'])
      for (const text of [
        '[toolchain]\npath = "/opt/x"\n',
        '[toolchain]\n"path" = "/opt/x"\n',
        'toolchain = { path = "/opt/x" }\n',
      ]) {
        writeFileSync(join(place.project, file), text);
        try {
          for (const command of [
            'cargo --version',
            'rustc --version',
            'cargo build',
            'rustfmt --version',
            'cargo tree',
            'cd crates/inner && cargo --version',
          ])
            for (const mode of modes) {
              const result = await place.decide(command, { allow: toolchainRules }, mode);
              expect(result.behavior, `${file} ${JSON.stringify(text)}: ${command} (${mode})`).not.toBe(
                'allow',
              );
              count++;
            }
        } finally {
          rmSync(join(place.project, file));
        }
      }
    expect(count).toBe(2 * 3 * 6 * modes.length);
  });

  it('keeps ordinary Rust projects allowed, and building commands under their rules', async () => {
    const ordinary = [
      '',
      '[net]\noffline = true\n[alias]\nb2 = "build"\n[build]\ntarget-dir = "t"\njobs = 4\n',
      '[target.x86_64-unknown-linux-gnu]\nlinker = "clang"\nrustflags = ["-C", "link-arg=-fuse-ld=mold"]\n',
    ];
    for (const text of ordinary) {
      const remove = text === '' ? () => {} : plant('.cargo/config.toml', text);
      writeFileSync(
        join(place.project, 'rust-toolchain.toml'),
        '[toolchain]\nchannel = "stable"\ncomponents = ["rustfmt"]\n',
      );
      try {
        for (const command of [...commands, 'cargo --version', 'rustc --version', 'cargo build'])
          expect(
            (
              await place.decide(
                command,
                { allow: [...rules, 'Bash(cargo --version)', 'Bash(rustc --version)'] },
                'default',
              )
            ).behavior,
            `${JSON.stringify(text)}: ${command}`,
          ).toBe('allow');
      } finally {
        remove();
        rmSync(join(place.project, 'rust-toolchain.toml'));
      }
    }
    const remove = plant('.cargo/config.toml', '[build]\nrustc-wrapper = "sccache"\n');
    try {
      for (const command of ['cargo build', 'cargo test', 'cargo check', 'cargo --version'])
        expect((await place.decide(command, { allow: ['Bash(cargo:*)'] }, 'default')).behavior, command).toBe(
          'allow',
        );
      expect((await place.decide('cargo tree', {}, 'bypassPermissions')).behavior).toBe('allow');
    } finally {
      remove();
    }
  });
});
