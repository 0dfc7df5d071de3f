import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Each check starts the real CLI; on a loaded machine that alone can take many seconds.
vi.setConfig({ testTimeout: 180_000 });

const root = join(import.meta.dirname, '..', '..', '..');
let project: string;
let home: string;
beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-check-')));
  home = join(project, 'home');
  mkdirSync(join(project, '.efferent'), { recursive: true });
  mkdirSync(home);
  writeFileSync(
    join(project, '.efferent', 'settings.json'),
    JSON.stringify({ permissions: { deny: ['Bash(rm *)'] } }),
  );
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const check = (args: string[], input?: string) =>
  spawnSync(process.execPath, [join(root, 'bin', 'efferent.js'), 'check', ...args], {
    encoding: 'utf8',
    cwd: project,
    timeout: 90_000,
    ...(input === undefined ? {} : { input }),
  });

describe('efferent check', () => {
  it('explains a decision in words, naming the rule and its settings file', () => {
    const result = check(['Bash', '{"command":"rm -rf build"}', '--cwd', project, '--home', home]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Decision: deny$/m);
    expect(result.stdout).toMatch(/Bash\(rm \*\)/);
    expect(result.stdout).toContain(join(project, '.efferent', 'settings.json'));
  });

  it('takes extra rules and a mode from flags', () => {
    const allowed = check([
      'Bash',
      '{"command":"make build"}',
      '--cwd',
      project,
      '--home',
      home,
      '--settings',
      '{"permissions":{"allow":["Bash(make *)"]}}',
    ]);
    expect(allowed.stdout).toMatch(/^Decision: allow$/m);
    const denied = check([
      'Bash',
      '{"command":"make build"}',
      '--cwd',
      project,
      '--home',
      home,
      '--mode',
      'dontAsk',
    ]);
    expect(denied.stdout).toMatch(/^Decision: deny$/m);
    expect(denied.stdout).toMatch(/dontAsk/);
  });

  it('warns about an invalid settings entry in one line naming the file and key, and decides anyway', () => {
    const bad = join(project, 'bad.json');
    writeFileSync(bad, JSON.stringify({ permissions: { deny: [7] } }));
    const result = check(['Read', '{"file_path":"a"}', '--cwd', project, '--home', home, '--settings', bad]);
    // One bad entry is skipped with a warning naming file and key; the decision is still made.
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/bad\.json: skipped permissions\.deny\[0\]: .*\.$/m);
    expect(result.stdout).toMatch(/^Decision: allow$/m);
  });

  it('answers bad jsonl lines with an error line and keeps going', () => {
    const lines = [
      '{"tool":"Read","input":{"file_path":"/srv/proj/a"},"cwd":"/srv/proj"}',
      '[]',
      '{"tool":"Read","input":{},"cwd":"/srv/proj","mode":"nope"}',
      '{"tool":"Bash","input":{"command":"ls"},"cwd":"/srv/proj","rules":{"deny":["Bash("]}}',
      '{"tool":"WebSearch","input":{},"cwd":"/srv/proj"}',
    ];
    const result = check(['--jsonl'], `${lines.join('\n')}\n`);
    expect(result.status).toBe(0);
    const outputs = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(outputs.map((output) => output.behavior ?? 'error')).toEqual([
      'allow',
      'error',
      'error',
      'error',
      'allow',
    ]);
    expect(outputs[0]).toMatchObject({ readOnly: true });
  });
});
