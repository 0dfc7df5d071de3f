import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpFootprint } from './program-footprint.ts';

/** What a program under the host's /tmp brings into the sandbox: its package, never /tmp itself. */
describe('tmpFootprint', () => {
  let root: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync('/tmp/efferent-footprint-'));
    // A workspace: ws/node_modules (hoisted), ws/packages/server/{package.json, bin/serve.js}.
    mkdirSync(join(root, 'ws', 'node_modules'), { recursive: true });
    mkdirSync(join(root, 'ws', 'packages', 'server', 'bin'), { recursive: true });
    writeFileSync(join(root, 'ws', 'packages', 'server', 'package.json'), '{}');
    writeFileSync(join(root, 'ws', 'packages', 'server', 'bin', 'serve.js'), '');
    // A script without any manifest, and a virtualenv whose python is a link out of /tmp.
    mkdirSync(join(root, 'loose'));
    writeFileSync(join(root, 'loose', 'tool.py'), '');
    mkdirSync(join(root, 'py', '.venv', 'bin'), { recursive: true });
    writeFileSync(join(root, 'py', 'pyproject.toml'), '');
    symlinkSync('/usr/bin/env', join(root, 'py', '.venv', 'bin', 'python'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('brings the package holding the script and the node_modules folders above it', () => {
    const server = join(root, 'ws', 'packages', 'server');
    expect(tmpFootprint('node', [join(server, 'bin', 'serve.js')], '/usr')).toEqual([
      join(root, 'ws', 'node_modules'),
      server,
    ]);
  });

  it('resolves relative words against the working directory, which comes too', () => {
    const bin = join(root, 'ws', 'packages', 'server', 'bin');
    expect(tmpFootprint('node', ['serve.js', '--port', '3'], bin)).toEqual([
      join(root, 'ws', 'node_modules'),
      join(root, 'ws', 'packages', 'server'),
      bin,
    ]);
  });

  it('brings only its own folder for a script without a manifest', () => {
    expect(tmpFootprint('python3', [join(root, 'loose', 'tool.py')], '/usr')).toEqual([join(root, 'loose')]);
  });

  it('finds a bare command on PATH and keeps the path as named when it links out of /tmp', () => {
    const bin = join(root, 'py', '.venv', 'bin');
    expect(tmpFootprint('python', ['-m', 'server'], '/usr', `/nonexistent:${bin}`)).toEqual([
      join(root, 'py'),
    ]);
  });

  it('never brings /tmp itself, nor anything outside it', () => {
    writeFileSync('/tmp/efferent-footprint-loose.js', '');
    try {
      expect(tmpFootprint('/tmp/efferent-footprint-loose.js', ['/tmp', '/usr/bin/env'], '/tmp')).toEqual([
        '/tmp/efferent-footprint-loose.js',
      ]);
    } finally {
      rmSync('/tmp/efferent-footprint-loose.js');
    }
  });
});
