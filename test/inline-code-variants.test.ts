import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * Code in another language on the command line (`python3 -c`, `node -e`, `perl -e`, `ruby -e`,
 * `php -r`, `lua -e`, an awk program, a sed script) can start a program whose name it computes, so a
 * deny rule on that program cannot see it (class `inline-code`, docs/decisions/security-inline-code.md).
 * In bypassPermissions mode each of these was allowed past `Bash(rm:*)`.
 */

const place = decisionPlace('efferent-inline-code-', (made) => {
  writeFileSync(join(made.project, 'README.md'), '# readme\n');
});

function removesVictim(command: string): boolean {
  const victim = join(place.project, 'victim');
  writeFileSync(victim, 'x\n');
  place.bash(command);
  return !existsSync(victim);
}

/** Each language's ways to run `rm victim` with the name built at run time. */
const programs: Readonly<Record<string, readonly string[]>> = {
  python3: [
    `python3 -c 'import os; os.system("r" + "m victim")'`,
    `python3 -c '__import__("o" + "s").system("r" + "m victim")'`,
    `python3 -c 'import subprocess as s; s.run(["r" + "m", "victim"])'`,
    `python3 -Ic 'import os; os.popen("r" + "m victim")'`,
    `python3 -c 'exec("import os; os.system(chr(114) + chr(109) + \\" victim\\")")'`,
    `python3 -c 'import pty; pty.spawn(["r" + "m", "victim"])'`,
    `python3 -c 'import os; os.execvp("r" + "m", ["r" + "m", "victim"])'`,
  ],
  node: [
    `node -e 'require("child_process").execSync("r" + "m victim")'`,
    `node --eval='require("child_process").spawnSync("r" + "m", ["victim"])'`,
    `node -p 'require("child_process").execSync("r" + "m victim").length'`,
    `node -e 'import("child_process").then((c) => c.execSync("r" + "m victim"))'`,
  ],
  perl: [
    `perl -e 'system("r" . "m victim")'`,
    `perl -e 'exec join "", "r", "m victim"'`,
    `perl -e 'my $c = "r" . "m victim"; qx($c)'`,
    `perl -e 'open(my $f, "|-", "r" . "m victim")'`,
    `perl -E 'system("r" . "m", "victim")'`,
  ],
  ruby: [`ruby -e 'system("r" + "m victim")'`, `ruby -e 'IO.popen("r" + "m victim")'`],
  php: [`php -r 'system("r" . "m victim");'`, `php -r 'shell_exec("r" . "m victim");'`],
  lua: [`lua -e 'os.execute("r" .. "m victim")'`],
  awk: [
    `awk 'BEGIN { c = "r" "m victim"; system(c) }'`,
    `awk 'BEGIN { print "victim" | ("r" "m " "-f") }'`,
    `awk 'BEGIN { ("r" "m victim") | getline }'`,
  ],
  sed: [
    `sed 's/.*/r""m victim/e' README.md`,
    `sed '1e r\\m victim' README.md`,
    `sed -n '1{s/.*/rm victim/;e' -e '}' README.md`,
  ],
};

const variants = Object.values(programs).flat();

describe('code on the command line that starts programs it names itself', () => {
  it('real interpreters run the computed command', () => {
    expect(removesVictim(`python3 -c 'import os; os.system("r" + "m victim")'`)).toBe(true);
    expect(removesVictim(`node -e 'require("child_process").execSync("r" + "m victim")'`)).toBe(true);
    expect(removesVictim(`perl -e 'system("r" . "m victim")'`)).toBe(true);
    expect(removesVictim(`awk 'BEGIN { c = "r" "m victim"; system(c) }'`)).toBe(true);
    expect(removesVictim(`sed 's/.*/r""m victim/e' README.md`)).toBe(true);
  });

  it.each(
    variants.flatMap((command) => ['Bash(rm:*)', 'Bash(rm *)'].map((rule) => [command, rule] as const)),
  )('%s is not allowed past %s in bypassPermissions', async (command, rule) => {
    const result = await place.decide(command, { deny: [rule] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
  });

  it.each([
    `python3 -c 'print(1)'`,
    `python3 -c 'import json, sys; print(json.load(sys.stdin))'`,
    `node -e 'console.log(1 + 1)'`,
    `node -p 'process.version'`,
    `perl -ne 'print if /x/' README.md`,
    `awk '{ print $1 }' README.md`,
    `sed 's/a/b/g' README.md`,
    `sed -i 's/a/b/g' README.md`,
    'python3 script.py',
  ])('%s stays allowed under Bash(rm:*) in bypassPermissions', async (command) => {
    const result = await place.decide(command, { deny: ['Bash(rm:*)'] }, 'bypassPermissions');
    expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
  });

  it.each(variants.slice(0, 3))(
    '%s stays allowed in bypassPermissions with no rule in force',
    async (command) => {
      const result = await place.decide(command, {}, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    },
  );
});
