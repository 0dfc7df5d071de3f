import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import { decisionPlace } from './decision-place.ts';

/**
 * Python's import path starts with the directory it runs in (class `python-import-path`,
 * docs/decisions/security-python-import-path.md). `python3 -m json.tool` under the common rule
 * `Bash(python3 -m json.tool:*)` imported a `json/` package or an `argparse.py` the repository
 * shipped, so the rule for a standard tool ran the repository's code. Such a call now asks.
 */

const python = ['python3', 'python'].find(
  (name) => spawnSync(name, ['--version'], { encoding: 'utf8' }).status === 0,
);

const place = decisionPlace('efferent-python-path-', (made) => {
  writeFileSync(join(made.project, 'data.json'), '{"a": 1}\n');
  mkdirSync(join(made.project, 'sub'));
  writeFileSync(join(made.project, 'sub', 'data.json'), '{"b": 2}\n');
});

/** What a shadow looks like on disk: a module file, a package, a compiled module, a linked package. */
const shapes = ['file', 'package', 'pyc', 'linked package'] as const;
/** Names Python or the tools people run with -m import: the module itself and what it imports. */
const shadowNames = ['json', 'argparse', 'pip', 'types'] as const;

const marker = () => join(place.root, 'ran');

function plant(directory: string, name: string, shape: (typeof shapes)[number]): () => void {
  const code = `open(${JSON.stringify(marker())}, "w").write("${name}")\n`;
  const made: string[] = [];
  if (shape === 'file') {
    writeFileSync(join(directory, `${name}.py`), code);
    made.push(join(directory, `${name}.py`));
  } else if (shape === 'pyc') {
    // A sourceless module is importable from a directory on the path; compiled once per name.
    const compiled = join(place.root, `${name}.compiled.pyc`);
    if (!existsSync(compiled)) {
      const source = join(place.root, `${name}.py`);
      writeFileSync(source, code);
      spawnSync(python ?? 'python3', [
        '-c',
        `import py_compile; py_compile.compile(${JSON.stringify(source)}, ${JSON.stringify(compiled)})`,
      ]);
      rmSync(source);
    }
    if (existsSync(compiled)) copyFileSync(compiled, join(directory, `${name}.pyc`));
    else writeFileSync(join(directory, `${name}.pyc`), '');
    made.push(join(directory, `${name}.pyc`));
  } else {
    const packageDirectory = shape === 'package' ? join(directory, name) : join(place.root, `pkg-${name}`);
    mkdirSync(packageDirectory, { recursive: true });
    writeFileSync(join(packageDirectory, '__init__.py'), code);
    made.push(packageDirectory);
    if (shape === 'linked package') {
      symlinkSync(packageDirectory, join(directory, name));
      made.push(join(directory, name));
    }
  }
  return () => {
    for (const path of made) rmSync(path, { recursive: true, force: true });
  };
}

/** Invocation spellings, each with the directory Python runs in and a rule that allows it. */
const invocations: Array<{ command: string; where: 'project' | 'sub' }> = [
  { command: 'python3 -m json.tool data.json', where: 'project' },
  { command: 'python3 -mjson.tool data.json', where: 'project' },
  { command: 'python3 -B -m json.tool data.json', where: 'project' },
  { command: 'python3 -Bu -W ignore -m json.tool data.json', where: 'project' },
  { command: 'python3 -X utf8 -m json.tool data.json', where: 'project' },
  { command: 'python3 -Bm json.tool data.json', where: 'project' },
  { command: 'python3 -m pip list', where: 'project' },
  { command: "python3 -c 'import json, sys; print(json.load(sys.stdin))' < data.json", where: 'project' },
  { command: 'python -m json.tool data.json', where: 'project' },
  { command: 'python3.11 -m json.tool data.json', where: 'project' },
  { command: '/usr/bin/python3 -m json.tool data.json', where: 'project' },
  { command: 'timeout 20 python3 -m json.tool data.json', where: 'project' },
  { command: 'env LANG=C python3 -m json.tool data.json', where: 'project' },
  { command: 'cd sub && python3 -m json.tool data.json', where: 'sub' },
];

const rules = [
  'Bash(python3 -m json.tool:*)',
  'Bash(python3:*)',
  'Bash(python:*)',
  'Bash(python3.11:*)',
  'Bash(/usr/bin/python3:*)',
  'Bash(timeout 20 python3:*)',
  'Bash(env LANG=C python3:*)',
  'Bash(cd:*)',
];
const modes: PermissionMode[] = ['default', 'acceptEdits', 'dontAsk'];

describe('python import path: a rule for a Python tool does not run the project module of the same name (generated)', () => {
  it.skipIf(python === undefined)(
    'real python runs a json/ package and an argparse.py from the directory (the attack is real)',
    () => {
      for (const name of ['json', 'argparse']) {
        const remove = plant(place.project, name, name === 'json' ? 'package' : 'file');
        rmSync(marker(), { force: true });
        spawnSync(python ?? 'python3', ['-m', 'json.tool', 'data.json'], {
          cwd: place.project,
          encoding: 'utf8',
        });
        expect(existsSync(marker()), name).toBe(true);
        remove();
      }
      const remove = plant(place.project, 'json', 'package');
      rmSync(marker(), { force: true });
      spawnSync(python ?? 'python3', ['-I', '-m', 'json.tool', 'data.json'], { cwd: place.project });
      expect(existsSync(marker()), '-I keeps the directory off the path').toBe(false);
      remove();
    },
  );

  it('every invocation is allowed by its rule in a directory with no shadowing module', async () => {
    for (const { command } of invocations)
      for (const mode of modes) {
        const result = await place.decide(command, { allow: rules }, mode);
        expect(result.behavior, `${command} (${mode})`).toBe('allow');
      }
  });

  it('never allows a Python call whose directory holds a module replacing Python’s own or a tool’s', {
    timeout: 240_000,
  }, async () => {
    let count = 0;
    for (const name of shadowNames) {
      for (const shape of shapes)
        for (const { command, where } of invocations) {
          const remove = plant(where === 'sub' ? join(place.project, 'sub') : place.project, name, shape);
          try {
            for (const mode of modes) {
              const result = await place.decide(command, { allow: rules }, mode);
              expect(result.behavior, `${name} as ${shape}: ${command} (${mode})`).not.toBe('allow');
              count++;
            }
          } finally {
            remove();
          }
        }
    }
    expect(count).toBe(shadowNames.length * shapes.length * invocations.length * modes.length);
  });

  it('keeps ordinary projects and safe spellings allowed', async () => {
    const project = place.project;
    writeFileSync(join(project, 'setup.py'), 'raise SystemExit\n');
    writeFileSync(join(project, 'main.py'), 'print(1)\n');
    mkdirSync(join(project, 'mypkg'));
    writeFileSync(join(project, 'mypkg', '__init__.py'), '');
    mkdirSync(join(project, 'tests'));
    writeFileSync(join(project, 'tests', '__init__.py'), '');
    // A directory named like a standard module but with no __init__ is a namespace portion, which
    // never wins over the standard package.
    mkdirSync(join(project, 'email'));
    writeFileSync(join(project, 'notes.txt'), 'json\n');
    try {
      for (const command of [
        'python3 -m json.tool data.json',
        'python3 -m mypkg',
        'python3 -m pytest -q',
        "python3 -c 'import json'",
        'python3 --version',
        'python3 -V',
      ])
        expect((await place.decide(command, { allow: rules }, 'default')).behavior, command).toBe('allow');
      const remove = plant(project, 'json', 'package');
      try {
        for (const command of [
          'python3 -I -m json.tool data.json',
          'python3 -P -m json.tool data.json',
          'python3 -Im json.tool data.json',
          'python3 --version',
          'python3 -V',
          'python3 main.py',
        ]) {
          const result = await place.decide(command, { allow: rules }, 'default');
          expect(result.behavior, command).toBe('allow');
        }
        expect((await place.decide('python3 -m json.tool data.json', {}, 'bypassPermissions')).behavior).toBe(
          'allow',
        );
      } finally {
        remove();
      }
    } finally {
      for (const path of ['setup.py', 'main.py', 'mypkg', 'tests', 'email', 'notes.txt'])
        rmSync(join(project, path), { recursive: true, force: true });
    }
  });
});
