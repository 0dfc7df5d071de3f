import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * `sed -i SUFFIX` keeps a backup of each edited file; a SUFFIX with `*` names it by the file's name,
 * in another directory when SUFFIX has a path (`sed -i'/home/u/*' … .bashrc` writes the project's
 * `.bashrc` to /home/u/.bashrc). acceptEdits and `Bash(sed *)` allowed it as an edit inside the
 * workspace (class `sed-backup`, docs/decisions/security-sed-backup.md).
 */

const place = decisionPlace('efferent-sed-backup-', (made) => {
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
  writeFileSync(join(made.project, '.bashrc'), 'touch pwned\n');
});

describe('sed -i backups are files sed writes', () => {
  it('real sed writes the backup where an absolute suffix with * points', () => {
    const outside = join(place.root, 'outside');
    mkdirSync(outside, { recursive: true });
    place.bash(`sed -i'${outside}/*' 's/x/y/' .bashrc`);
    expect(readFileSync(join(outside, '.bashrc'), 'utf8')).toBe('touch pwned\n');
    place.bash(`sed --in-place='${outside}/saved_*' 's/x/y/' README.md`);
    expect(existsSync(join(outside, 'saved_README.md'))).toBe(true);
  });

  const suffixes = (home: string) => [
    `-i'${home}/*'`,
    `-ni'${home}/*'`,
    `-Ei'${home}/*'`,
    `-si'${home}/*'`,
    `-i'${home}/.*'`,
    `--in-place='${home}/*'`,
    `--in-place=${home}/*`,
    `--in-pl='${home}/*'`,
    `-i'../../*'`,
    `-i'/../../../../../../${home.slice(1)}/x'`,
  ];

  it.each(['acceptEdits', 'default'] as const)(
    'in %s, a backup outside the project is never allowed',
    async (mode) => {
      const rules = mode === 'default' ? { allow: ['Bash(sed *)'] } : {};
      for (const suffix of suffixes(place.home)) {
        for (const file of ['.bashrc', 'README.md']) {
          const command = `sed ${suffix} 's/x/y/' ${file}`;
          const result = await place.decide(command, rules, mode);
          expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
        }
      }
    },
  );

  it.each([
    "sed -i.bak 's/a/b/' README.md",
    "sed -i~ 's/a/b/' README.md",
    "sed -i'bak/*' 's/a/b/' README.md",
    "sed --in-place=.orig 's/a/b/' README.md",
  ])('%s stays allowed in acceptEdits', async (command) => {
    const result = await place.decide(command, {}, 'acceptEdits');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
