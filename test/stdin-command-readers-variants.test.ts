import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * More programs that read a program or commands from standard input (class `stdin-program`,
 * docs/decisions/security-stdin-program.md, "Command readers"): `dc` (`!cmd`), `m4` (`syscmd`), `ed`
 * and `ex` (`!cmd`), vim keystrokes, sqlite3 (`.shell`), gdb (`shell`), gnuplot, expect, R, julia.
 * Fed from a pipe, a here-string or a redirect, each was allowed past `Bash(rm:*)` in
 * bypassPermissions; and inline code of the same languages (`gnuplot -e`, `Rscript -e`) or behind a
 * runner (`busybox awk`, `find -exec python3 -c`) passed the inline-code check.
 */

const place = decisionPlace('efferent-stdin-readers-', (made) => {
  writeFileSync(join(made.project, 'README.md'), 'hello\n');
});

function removesVictim(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  place.bash(command);
  return !existsSync(victim);
}

/** [program invocation, what it reads that runs `rm victim`]. */
const readers: ReadonlyArray<readonly [string, string]> = [
  ['dc', '!rm victim'],
  ['m4', 'syscmd(rm victim)'],
  ['ed -s README.md', '!rm victim'],
  ['ed', '!rm victim'],
  ['ex -s README.md', '!rm victim'],
  ['vim -es', '!rm victim'],
  ['vim -Es README.md', '!rm victim'],
  ['sqlite3', '.shell rm victim'],
  ['sqlite3 data.db', '.system rm victim'],
  ['gdb -batch', 'shell rm victim'],
  ['gnuplot', 'system("rm victim")'],
  ['expect', 'spawn rm victim'],
  ['R --vanilla', 'system("rm victim")'],
  ['julia', 'run(`rm victim`)'],
  ['wish', 'exec rm victim'],
];

/** Ways to feed the text (T) to the program (P). */
const feeds = [
  "echo 'T' | P",
  "printf '%s\\n' 'T' | P",
  "P <<< 'T'",
  "P <<'EOF'\nT\nEOF",
  'P < cmds.txt',
  "P < <(echo 'T')",
];

const inline = [
  `gnuplot -e 'system("r" . "m victim")'`,
  `Rscript -e 'system(paste0("r", "m victim"))'`,
  `R -e 'system(paste0("r", "m victim"))'`,
  'julia -e \'run(`$(string("r", "m")) victim`)\'',
  `expect -c 'spawn r[string index m 0] victim'`,
  `busybox awk 'BEGIN { system("r" "m victim") }'`,
  `find . -maxdepth 0 -exec python3 -c 'import os; os.system("r" + "m victim")' \\;`,
  `find . -maxdepth 0 -exec awk 'BEGIN { system("r" "m victim") }' \\;`,
];

describe('programs that run commands read from their input', () => {
  it('real ed and sqlite3 run the command from input, python3 behind find -exec its computed one', () => {
    expect(removesVictim("echo '!rm victim' | ed -s README.md")).toBe(true);
    expect(removesVictim("echo '.shell rm victim' | sqlite3")).toBe(true);
    expect(
      removesVictim(`find . -maxdepth 0 -exec python3 -c 'import os; os.system("r" + "m victim")' \\;`),
    ).toBe(true);
  });

  it.each(
    readers.flatMap(([program, text]) => feeds.map((feed) => feed.replace('P', program).replace('T', text))),
  )('%s is not allowed past Bash(rm:*) in bypassPermissions', async (command) => {
    const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each(inline)('%s is not allowed past Bash(rm:*) in bypassPermissions', async (command) => {
    const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each(['vim README.md', 'm4 defs.m4', 'git log | less', "sqlite3 data.db 'select 1'", 'gnuplot plot.gp'])(
    '%s stays allowed under Bash(rm:*) in bypassPermissions',
    async (command) => {
      const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    },
  );
});
