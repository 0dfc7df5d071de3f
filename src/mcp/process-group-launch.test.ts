import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupLaunch, resolveCommand } from './process-group-launch.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete process.env.EFFERENT_MCP_SETSID;
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'efferent-launch-'));
  dirs.push(dir);
  return dir;
}
function program(dir: string, name: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, mode);
  return path;
}

describe('resolveCommand', () => {
  it('finds a bare name on PATH in order, a path with a slash from cwd, and only executable files', () => {
    const root = folder();
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    program(join(root, 'a'), 'srv', 0o644);
    const second = program(join(root, 'b'), 'srv');
    expect(resolveCommand('srv', `${join(root, 'a')}:${join(root, 'b')}`, root)).toBe(second);
    expect(resolveCommand('./b/srv', undefined, root)).toBe(second);
    expect(resolveCommand('missing', join(root, 'a'), root)).toBeUndefined();
    expect(resolveCommand('a', root, root)).toBeUndefined();
  });
});

describe.runIf(process.platform !== 'win32')('processGroupLaunch', () => {
  it('starts a found program through the system perl, keeping the configured argv[0]', () => {
    const root = folder();
    const path = program(root, 'srv');
    const launch = processGroupLaunch('srv', ['--flag'], { PATH: root }, root);
    if (launch.file.endsWith('/perl')) {
      expect(launch.detached).toBe(false);
      expect(launch.args.slice(2)).toEqual([path, 'srv', '--flag']);
    } else expect(launch).toEqual({ file: 'srv', args: ['--flag'], detached: true });
  });

  it('detaches as before when the program cannot be found, or when asked to', () => {
    expect(processGroupLaunch('no-such-program-xyz', [], { PATH: folder() }, undefined)).toEqual({
      file: 'no-such-program-xyz',
      args: [],
      detached: true,
    });
    const root = folder();
    program(root, 'srv');
    process.env.EFFERENT_MCP_SETSID = '1';
    expect(processGroupLaunch('srv', [], { PATH: root }, root).detached).toBe(true);
  });
});
