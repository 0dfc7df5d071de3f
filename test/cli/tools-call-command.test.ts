import { afterEach, describe, expect, it } from 'vitest';
import { runEfferent } from './run-efferent.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

const efferent = runEfferent;

let workspace: TempWorkspace;
afterEach(() => workspace?.dispose());

describe('efferent tools', () => {
  it('prints the pool as each provider sees it, built-ins sorted by name', async () => {
    workspace = await createTempWorkspace();
    const anthropic = await efferent(['tools', '--json'], workspace.dir);
    expect(anthropic.code).toBe(0);
    const definitions = JSON.parse(anthropic.stdout) as Array<{ name: string; input_schema: object }>;
    const names = definitions.map((definition) => definition.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']));
    expect(JSON.stringify(definitions)).not.toContain('_simulatedSedEdit');
    const openai = JSON.parse(
      (await efferent(['tools', '--json', '--provider', 'openai'], workspace.dir)).stdout,
    );
    expect(openai[0]).toMatchObject({ type: 'function', function: { name: names[0] } });
    const gemini = await efferent(['tools', '--provider', 'gemini'], workspace.dir);
    expect(gemini.stdout).toContain('## Read');
    expect(gemini.stdout).not.toContain('additionalProperties');
  });

  it('rejects an unknown provider with one line and exit 2', async () => {
    workspace = await createTempWorkspace();
    const result = await efferent(['tools', '--provider', 'nope'], workspace.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("argument 'nope' is invalid");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('efferent call', () => {
  it('runs a read through the whole pipeline and prints the tool_result', async () => {
    workspace = await createTempWorkspace({ files: { 'notes.txt': 'alpha\nbeta\n' } });
    const result = await efferent(['call', 'Read', '{"file_path":"notes.txt"}'], workspace.dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('     1\talpha\n     2\tbeta\n');
  });

  it('prints the whole block with --json and honours --cwd', async () => {
    workspace = await createTempWorkspace({ files: { 'sub/x.txt': 'needle\n' } });
    const result = await efferent(
      ['call', 'Grep', '{"pattern":"needle"}', '--json', '--cwd', 'sub'],
      workspace.dir,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      type: 'tool_result',
      content: expect.stringContaining('x.txt'),
    });
  });

  it('refuses a write nobody approved, exits 1, and leaves the file alone', async () => {
    workspace = await createTempWorkspace({ files: { 'keep.txt': 'keep\n' } });
    const result = await efferent(['call', 'Bash', '{"command":"rm keep.txt"}'], workspace.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/<tool_use_error>.*not granted/s);
    expect(await workspace.read('keep.txt')).toBe('keep\n');
  });

  it('follows the permission mode and the project settings', async () => {
    workspace = await createTempWorkspace({
      files: {
        '.efferent/settings.json': JSON.stringify({ permissions: { deny: ['Bash(touch denied*)'] } }),
      },
    });
    const allowed = await efferent(
      ['call', 'Bash', '{"command":"touch made.txt"}', '--mode', 'acceptEdits'],
      workspace.dir,
    );
    expect(allowed.code).toBe(0);
    const denied = await efferent(
      ['call', 'Bash', '{"command":"touch denied.txt"}', '--mode', 'bypassPermissions'],
      workspace.dir,
    );
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('Bash(touch denied*)');
  });

  it('turns bad input into one clear line and exit 2', async () => {
    workspace = await createTempWorkspace();
    const badJson = await efferent(['call', 'Read', '{oops'], workspace.dir);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^efferent: The input is not valid JSON .*\n$/);
    const unknown = await efferent(['call', 'Teleport', '{}'], workspace.dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown tool "Teleport"\. Available: .*Read/);
    const array = await efferent(['call', 'Read', '[1]'], workspace.dir);
    expect(array.code).toBe(2);
    const invalid = await efferent(['call', 'Read', '{"file_path":7}'], workspace.dir);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain('InputValidationError');
  });
});

describe('efferent call and workspace trust', () => {
  it('applies a project allow rule only after --trust, remembers it, and --untrusted overrides', async () => {
    workspace = await createTempWorkspace({
      files: { '.efferent/settings.json': JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }) },
    });
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    const first = await efferent(['call', 'Bash', '{"command":"touch a.txt"}'], workspace.dir, home.dir);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('run with --trust once');
    const trusted = await efferent(
      ['call', 'Bash', '{"command":"touch a.txt"}', '--trust'],
      workspace.dir,
      home.dir,
    );
    expect(trusted.code).toBe(0);
    const remembered = await efferent(['call', 'Bash', '{"command":"touch b.txt"}'], workspace.dir, home.dir);
    expect(remembered.code).toBe(0);
    // A slow machine may print progress lines for the command; nothing else may reach stderr.
    expect(
      remembered.stderr.split('\n').filter((line) => line && !line.includes('"shell_progress"')),
    ).toEqual([]);
    const forced = await efferent(
      ['call', 'Bash', '{"command":"touch c.txt"}', '--untrusted'],
      workspace.dir,
      home.dir,
    );
    expect(forced.code).toBe(1);
    expect(forced.stderr).not.toContain('--trust');
  });
});
