import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * The shell lists a directory to expand a pattern, whatever program then receives the names (class
 * `pattern-listing`, docs/decisions/security-pattern-listing.md). `ls ~/.ssh` asks, but
 * `echo ~/.ssh/*`, `printf '%s\n' ../outside/*` and `for f in ~/.ssh/*; do echo "$f"; done`
 * printed the same listing: programs that open nothing themselves had their words left unjudged. Real bash
 * first prints a name from outside the project; the engine must then not allow it. Patterns inside
 * the project and quoted (literal) ones stay allowed.
 */

const marker = 'PATTERN_SECRET_NAME_5a9e';
const place = decisionPlace('efferent-pattern-', ({ root, home, project }) => {
  mkdirSync(join(home, '.ssh'));
  mkdirSync(join(root, 'outside'));
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(home, '.ssh', `id_${marker}`), 'key\n');
  writeFileSync(join(root, 'outside', `s${marker}`), 'x\n');
  writeFileSync(join(project, 'src', 'app.ts'), 'export const a = 1;\n');
});

const decide = (command: string) => place.decide(command, {}, 'default');
const bash = (command: string) => place.bash(command);

/** Programs that open nothing themselves; the shell expands the pattern P for them. */
const programs = [
  'echo P',
  "printf '%s\\n' P",
  'basename -a P',
  'true P',
  ': P',
  'test -n P',
  'dirname P',
  'echo -n x P',
];

/** Patterns that expand in a directory outside the project (<root> is filled in per test). */
const patterns = [
  '~/.ssh/*',
  '$HOME/.ssh/*',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash parameter expansion, not a template.
  '${HOME}/.ssh/id_*',
  '~/.*',
  '../outside/*',
  '<root>/outside/*',
  '../outside/s*',
  '../outside/[s]*',
  '../*/*',
  '<root>/*/*',
];

const fill = (command: string) => command.replaceAll('<root>', place.root);

describe('a pattern is a listing of the directory it expands in', () => {
  it('real bash prints names from outside the project', () => {
    expect(bash('echo ~/.ssh/*')).toContain(marker);
    expect(bash("printf '%s\\n' ../outside/*")).toContain(marker);
    expect(bash('for f in ~/.ssh/*; do echo "$f"; done')).toContain(marker);
  });

  it.each(programs.flatMap((program) => patterns.map((pattern) => program.replace('P', pattern))))(
    '%s is not allowed',
    async (template) => {
      const command = fill(template);
      const result = await decide(command);
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each(patterns.map((pattern) => `for f in ${pattern}; do echo "$f"; done`))(
    '%s is not allowed',
    async (template) => {
      const command = fill(template);
      const result = await decide(command);
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each([
    'echo src/*',
    'echo *.md',
    "printf '%s\\n' src/*.ts",
    'basename -a src/*',
    'for f in src/*; do echo "$f"; done',
    "echo '~/.ssh/*'",
    'echo "../outside/*"',
    'echo \\*',
    'echo hello world',
    'test -f src/app.ts',
  ])('%s stays allowed', async (command) => {
    const result = await decide(command);
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
