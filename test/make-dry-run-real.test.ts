import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * `make -n` is not a sandbox (class `make-dry-run`, docs/decisions/security-make-dry-run.md). Under
 * a rule given for dry runs (`Bash(make -n:*)`), a repository's makefile ran `$(shell …)`,
 * `$(file >…)`, `!=`, `+` lines, `$(MAKE)` lines and the rules that remake makefiles. Such a call
 * now asks when the makefiles it reads hold any of them.
 */

const hasMake = spawnSync('make', ['--version']).status === 0;

const place = decisionPlace('efferent-make-dry-', (made) => {
  mkdirSync(join(made.project, 'sub'));
});

const marker = () => join(place.root, 'ran');

/** Makefile texts that make runs code from while only printing; `M` is the marker path. */
const constructs = (m: string): Array<{ name: string; text: string; extra?: Record<string, string> }> => [
  { name: 'shell', text: `X := $(shell touch ${m})\nall:\n\techo hi\n` },
  { name: 'brace shell', text: `X := \${shell touch ${m}}\nall:\n\techo hi\n` },
  { name: 'file', text: `X := $(file >${m},x)\nall:\n\techo hi\n` },
  { name: '!=', text: `X != touch ${m}\nall:\n\techo hi\n` },
  { name: '+ line', text: `all:\n\t+touch ${m}\n` },
  { name: '@+ line', text: `all:\n\t@+touch ${m}\n` },
  { name: '$(MAKE) line', text: `all:\n\t$(MAKE) -v >/dev/null; touch ${m}\n` },
  { name: 'brace MAKE line', text: `all:\n\t\${MAKE} -v >/dev/null; touch ${m}\n` },
  { name: 'eval', text: `$(eval $(subst @,,X := $$(sh@ell touch ${m})))\nall:\n\techo hi\n` },
  { name: 'remade include', text: `-include gen.mk\nall:\n\techo hi\ngen.mk:\n\ttouch ${m}; : > gen.mk\n` },
  {
    name: 'remade makefile',
    text: `all:\n\techo hi\nMakefile GNUmakefile makefile other.mk: FORCE\n\ttouch ${m}\nFORCE:\n`,
  },
  { name: 'pattern remake', text: `all:\n\techo hi\n%e %k: FORCE\n\ttouch ${m}\nFORCE:\n` },
  { name: 'continued shell', text: `X := $(shell \\\n  touch ${m})\nall:\n\techo hi\n` },
];

/** Where the makefile sits and how make is pointed at it. */
const placements = ['Makefile', 'GNUmakefile', 'makefile', 'included', '-f other.mk', '-C sub'] as const;

function plant(placement: (typeof placements)[number], text: string): () => void {
  const paths: string[] = [];
  const write = (path: string, content: string) => {
    writeFileSync(path, content);
    paths.push(path);
  };
  if (placement === 'included') {
    write(join(place.project, 'Makefile'), 'include rules.mk\n');
    write(join(place.project, 'rules.mk'), text);
  } else if (placement === '-f other.mk') write(join(place.project, 'other.mk'), text);
  else if (placement === '-C sub') write(join(place.project, 'sub', 'Makefile'), text);
  else write(join(place.project, placement), text);
  return () => {
    for (const path of [...paths, join(place.project, 'gen.mk'), join(place.project, 'sub', 'gen.mk')])
      rmSync(path, { force: true });
  };
}

const dryRuns = [
  'make -n',
  'make --dry-run',
  'make --just-print',
  'make --recon',
  'make -np',
  'make -n all',
  'make -q',
];
const spelled = (command: string, placement: (typeof placements)[number]) =>
  placement === '-f other.mk'
    ? `${command} -f other.mk`
    : placement === '-C sub'
      ? `${command} -C sub`
      : command;
const dryRules = [
  'Bash(make -n:*)',
  'Bash(make --dry-run:*)',
  'Bash(make --just-print:*)',
  'Bash(make --recon:*)',
  'Bash(make -np:*)',
  'Bash(make -q:*)',
];
const modes: PermissionMode[] = ['default', 'acceptEdits', 'dontAsk'];

describe('make dry run: a rule for make -n does not run what the makefile runs anyway (generated)', () => {
  it.skipIf(!hasMake)('real make -n runs each construct (the attack is real)', () => {
    for (const construct of constructs(marker())) {
      const remove = plant('Makefile', construct.text);
      rmSync(marker(), { force: true });
      spawnSync('make', ['-n'], { cwd: place.project, stdio: 'ignore' });
      expect(existsSync(marker()), construct.name).toBe(true);
      remove();
    }
  });

  it('never allows a dry run whose makefiles hold a construct that runs', { timeout: 240_000 }, async () => {
    let count = 0;
    for (const construct of constructs(marker()))
      for (const placement of placements) {
        const remove = plant(placement, construct.text);
        try {
          for (const command of dryRuns)
            for (const mode of modes) {
              const line = spelled(command, placement);
              const result = await place.decide(line, { allow: dryRules }, mode);
              expect(result.behavior, `${construct.name} in ${placement}: ${line} (${mode})`).not.toBe(
                'allow',
              );
              count++;
            }
        } finally {
          remove();
        }
      }
    expect(count).toBe(13 * placements.length * dryRuns.length * modes.length);
  });

  it('keeps plain makefiles allowed, and make under a rule for running it', async () => {
    const plain =
      'CC ?= cc\nSRC := $(wildcard src/*.c)\n.PHONY: all test\nall: app\n\t@echo building $(SRC)\napp: $(SRC)\n\t$(CC) -o $@ $^\ntest:\n\t./run-tests.sh\n';
    for (const placement of placements) {
      const remove = plant(placement, plain);
      try {
        for (const command of dryRuns) {
          const line = spelled(command, placement);
          expect(
            (await place.decide(line, { allow: dryRules }, 'default')).behavior,
            `${placement}: ${line}`,
          ).toBe('allow');
        }
      } finally {
        remove();
      }
    }
    // No makefile at all: make only complains.
    expect((await place.decide('make -n', { allow: dryRules }, 'default')).behavior).toBe('allow');
    // A rule that lets the makefile run, and the version, are not dry-run questions.
    const remove = plant('Makefile', constructs(marker())[0]?.text ?? '');
    try {
      expect((await place.decide('make -n', { allow: ['Bash(make:*)'] }, 'default')).behavior).toBe('allow');
      expect(
        (await place.decide('make --version', { allow: ['Bash(make --version)'] }, 'default')).behavior,
      ).toBe('allow');
      expect((await place.decide('make -n', {}, 'bypassPermissions')).behavior).toBe('allow');
    } finally {
      remove();
    }
  });
});
