import { describe, expect, it } from 'vitest';
import { decisionPlace } from './decision-place.ts';

/**
 * `at` and `batch` read shell commands from standard input and run them later through `sh` (class
 * `stdin-program`, docs/decisions/security-stdin-program.md, "Schedulers"). `at now <<< 'rm x'` was
 * judged as `at now` alone and allowed past a `Bash(rm:*)` deny in bypassPermissions mode.
 */

const place = decisionPlace('efferent-scheduled-input-');

const schedulers = [
  'at now',
  'at now + 1 minute',
  'at -m now',
  'at -q b now',
  'at -M -t 202601010000',
  'batch',
  'batch -q c',
  'timeout 5 at now',
  'env at now',
  'nohup batch',
];

/** Literal bodies: analysed as code, so the deny rule itself matches. */
const literal = [
  "S <<< 'rm -rf dist'",
  "S <<'EOF'\nrm -rf dist\nEOF",
  'S <<EOF\necho start\nrm -rf dist\nEOF',
];

/** Input only known when the command runs. */
const runtime = ["echo 'rm -rf dist' | S", 'cat job.txt | S', 'S < job.txt', "S < <(echo 'rm -rf dist')"];

const deny = { deny: ['Bash(rm:*)'] };

describe('at and batch run their standard input as shell commands', () => {
  it.each(schedulers.flatMap((scheduler) => literal.map((form) => form.replace('S', scheduler))))(
    '%s is denied by Bash(rm:*)',
    async (command) => {
      const result = await place.decide(command, deny, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('deny');
    },
  );

  it.each(schedulers.flatMap((scheduler) => runtime.map((form) => form.replace('S', scheduler))))(
    '%s is not allowed under Bash(rm:*)',
    async (command) => {
      const result = await place.decide(command, deny, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).not.toBe('allow');
    },
  );

  it.each(["at now <<< 'ls -la'", 'at -l', 'atq', 'batch <<< "make build"'])(
    '%s stays allowed in bypassPermissions under Bash(rm:*)',
    async (command) => {
      const result = await place.decide(command, deny, 'bypassPermissions');
      expect(result.behavior, `${command}: ${result.message ?? ''}`).toBe('allow');
    },
  );

  it("at now <<< 'ls' schedules a job, so default mode asks", async () => {
    const result = await place.decide("at now <<< 'ls'", {}, 'default');
    expect(result.behavior).toBe('ask');
  });
});
