import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Names an awk program reaches without writing them, and files a command opens without naming
 * them under an allow rule (class `awk-names`, docs/decisions/security-awk-names.md).
 *
 * gawk's SYMTAB holds every global variable under its name: `SYMTAB["AR" "GV"][1] = f` with
 * `SYMTAB["AR" "GC"] = 2` makes the main loop read `f`, and `SYMTAB["ENVI" "RON"]` is the
 * environment. The checks looked for the words ARGV, ARGC and ENVIRON, so such programs were
 * read-only (allowed with no rules, reading a denied .env or a key outside) and prefix-allowed.
 * And files a command opens without naming them (awk's ARGV, `wc --files0-from`, `file -f`,
 * `sha256sum -c`) were asked about only for read-only commands, so `Bash(awk *)` allowed
 * `awk 'BEGIN{ARGV[1]="/home/u/.ssh/id_rsa";ARGC=2}1'`, while `awk 1 /home/u/.ssh/id_rsa` asked.
 */

const place = decisionPlace('efferent-awk-names-', (made) => {
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
  writeFileSync(join(made.project, '.env'), 'SECRET=hunter2\n');
  writeFileSync(join(made.project, 'names.txt'), '../outside.txt\n');
  writeFileSync(join(made.root, 'outside.txt'), 'OUTSIDE-SECRET\n');
  mkdirSync(join(made.home, '.ssh'), { recursive: true });
  writeFileSync(join(made.home, '.ssh', 'id_rsa'), 'KEY\n');
});

const gawk = spawnSync('sh', ['-c', 'command -v gawk'], { encoding: 'utf8' }).status === 0;

/** Ways of spelling a name as a computed SYMTAB index. */
const spelled = (name: string): string[] => [
  `"${name}"`,
  `"${name.slice(0, 2)}" "${name.slice(2)}"`,
  `toupper("${name.toLowerCase()}")`,
  `sprintf("%s%s", "${name.slice(0, 1)}", "${name.slice(1)}")`,
];

/** Files the program makes its main loop read. */
const targets = ['.env', '../outside.txt', '~/.ssh/id_rsa'];

const programs = (target: (file: string) => string) => [
  ...targets.flatMap((file) =>
    spelled('ARGV').flatMap((argv) =>
      spelled('ARGC')
        .slice(0, 2)
        .map((argc) => `BEGIN{SYMTAB[${argv}][1]="${target(file)}";SYMTAB[${argc}]=2}{print}`),
    ),
  ),
  ...spelled('ENVIRON').map((environ) => `BEGIN{print SYMTAB[${environ}]["HOME"]}`),
  'BEGIN{for (n in SYMTAB) if (n ~ /^ENV/) for (k in SYMTAB[n]) print k, SYMTAB[n][k]}',
  'BEGIN{x = "AR" "GV"; SYMTAB[x][1] = "names.txt"; SYMTAB["AR" "GC"] = 2}{print}',
];

describe('awk names reached by a computed name', () => {
  it.skipIf(!gawk)('real gawk reads the file SYMTAB puts in ARGV and the environment', () => {
    expect(place.bash(`gawk 'BEGIN{SYMTAB["AR" "GV"][1]=".env";SYMTAB["AR" "GC"]=2}{print}'`)).toContain(
      'hunter2',
    );
    expect(
      place.bash(`gawk 'BEGIN{SYMTAB["AR" "GV"][1]="../outside.txt";SYMTAB["AR" "GC"]=2}{print}'`),
    ).toContain('OUTSIDE-SECRET');
    expect(place.bash(`gawk 'BEGIN{print SYMTAB["ENVI" "RON"]["HOME"]}'`)).toContain(place.home);
  });

  const home = (file: string) => (file.startsWith('~/') ? `${place.home}/${file.slice(2)}` : file);
  const commands = () =>
    programs(home).flatMap((program) =>
      ['awk', 'gawk'].flatMap((awk) => [`${awk} '${program}'`, `${awk} -F: '${program}' README.md`]),
    );

  it('none is allowed with no rules, under a read deny rule, or under Bash(awk *)', async () => {
    const list = commands();
    expect(list.length).toBeGreaterThan(100);
    const ruleSets = [
      {},
      { deny: ['Read(./.env)', 'Read(~/.ssh/**)'] },
      { allow: ['Bash(awk *)', 'Bash(gawk *)'] },
      { allow: ['Bash(awk:*)', 'Bash(gawk:*)'], deny: ['Read(./.env)'] },
    ];
    const allowed: string[] = [];
    for (const command of list)
      for (const rules of ruleSets)
        for (const mode of ['default', 'acceptEdits', 'plan'] as const) {
          const result = await place.decide(command, rules, mode);
          if (result.behavior === 'allow') allowed.push(`${command} ${JSON.stringify(rules)} ${mode}`);
        }
    expect(allowed).toEqual([]);
  });
});

describe('files a command opens without naming them ask before allow rules', () => {
  it('real programs open the names they read', () => {
    expect(
      place.bash('wc -c --files0-from=- < /dev/null; printf "../outside.txt\\0" | wc -c --files0-from=-'),
    ).toContain('outside.txt');
    expect(place.bash(`awk 'BEGIN{ARGV[1]="../outside.txt";ARGC=2}{print}'`)).toContain('OUTSIDE-SECRET');
  });

  const cases: ReadonlyArray<readonly [string, string]> = [
    ['Bash(awk *)', `awk 'BEGIN{ARGV[1]="../outside.txt";ARGC=2}{print}'`],
    ['Bash(awk *)', `awk 'BEGIN { ARGV[ARGC++] = "@HOME@/.ssh/id_rsa" } 1'`],
    ['Bash(awk:*)', `awk 'BEGIN{ARGV[1]="@HOME@/.ssh/id_rsa";ARGC=2}1'`],
    ['Bash(gawk *)', `gawk 'BEGIN{SYMTAB["AR" "GV"][1]="../outside.txt";SYMTAB["AR" "GC"]=2}1'`],
    ['Bash(wc *)', 'wc --files0-from=names.txt'],
    ['Bash(wc *)', 'wc --files0=names.txt'],
    ['Bash(du *)', 'du --files0-from=names.txt'],
    ['Bash(sort *)', 'sort --files0-from=names.txt'],
    ['Bash(file *)', 'file -f names.txt'],
    ['Bash(file *)', 'file --files-from names.txt'],
    ['Bash(sha256sum *)', 'sha256sum -c names.txt'],
    ['Bash(md5sum *)', 'md5sum --check names.txt'],
    ['Bash(find *)', 'find . -files0-from names.txt'],
  ];
  it.each(cases)('%s does not allow %s', async (rule, template) => {
    const command = template.replaceAll('@HOME@', place.home);
    for (const mode of ['default', 'acceptEdits'] as const) {
      const result = await place.decide(command, { allow: [rule] }, mode);
      expect(result.behavior, `${command} (${mode}): ${result.message ?? ''}`).not.toBe('allow');
    }
  });

  it.each([
    ['Bash(awk *)', "awk '{print $1}' README.md"],
    ['Bash(awk *)', "awk -F: 'END {print NR}' README.md"],
    ['Bash(wc *)', 'wc -l README.md'],
    ['Bash(wc *)', 'git ls-files | xargs wc -l'],
    ['Bash(file *)', 'file README.md'],
    ['Bash(sha256sum *)', 'sha256sum README.md'],
  ])('%s still allows %s', async (rule, command) => {
    const result = await place.decide(command, { allow: [rule, 'Bash(git ls-files)'] }, 'default');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });
});
