import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';

/**
 * efferent's own configuration variables read from the session's configuration environment: the
 * process's (here the `env` option) overlaid by the settings files' `env`, settings winning.
 */

let root: string;
let session: Session | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-config-env-')));
  await mkdir(join(root, 'home', '.efferent'), { recursive: true });
  await mkdir(join(root, 'project'));
});
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await rm(root, { recursive: true, force: true });
});

/** A session whose user settings set `env` (and allow Bash), started with `processEnv`. */
async function open(settingsEnv: Record<string, string>, processEnv: Record<string, string> = {}) {
  await writeFile(
    join(root, 'home', '.efferent', 'settings.json'),
    JSON.stringify({ env: settingsEnv, permissions: { allow: ['Bash'] } }),
  );
  session = await createSession({
    cwd: join(root, 'project'),
    home: join(root, 'home'),
    sessionDir: join(root, 'session'),
    managedSettingsPath: join(root, 'no-policy.json'),
    env: { PATH: process.env['PATH'], HOME: join(root, 'home'), ...processEnv },
  });
  return session;
}

async function bash(current: Session, input: Record<string, unknown>): Promise<string> {
  return toolResultText(await current.callTool('Bash', input));
}

describe('Bash limits from the configuration environment', () => {
  it('BASH_DEFAULT_TIMEOUT_MS in settings env sets the timeout of a call that gives none', async () => {
    const current = await open({ BASH_DEFAULT_TIMEOUT_MS: '300' });
    const text = await bash(current, { command: 'sleep 20' });
    expect(text).toContain('Command timed out after 300 ms');
  });

  it('settings env wins over the process environment; the process environment applies alone', async () => {
    const both = await open({ BASH_DEFAULT_TIMEOUT_MS: '400' }, { BASH_DEFAULT_TIMEOUT_MS: '250' });
    expect(await bash(both, { command: 'sleep 20' })).toContain('timed out after 400 ms');
    await both.dispose();
    const processOnly = await open({}, { BASH_DEFAULT_TIMEOUT_MS: '250' });
    expect(await bash(processOnly, { command: 'sleep 20' })).toContain('timed out after 250 ms');
  });

  it('BASH_MAX_TIMEOUT_MS lowers a larger timeout the call asks for', async () => {
    const current = await open({ BASH_MAX_TIMEOUT_MS: '350' }, { BASH_DEFAULT_TIMEOUT_MS: '200' });
    expect(await bash(current, { command: 'sleep 20', timeout: 100_000 })).toContain(
      'timed out after 350 ms',
    );
    // A call within the ceiling keeps its own timeout.
    expect(await bash(current, { command: 'sleep 20', timeout: 300 })).toContain('timed out after 300 ms');
  });

  it('BASH_MAX_OUTPUT_LENGTH sets how much output is shown inline', async () => {
    const command = "head -c 3000 /dev/zero | tr '\\0' a";
    const plain = await open({});
    expect(await bash(plain, { command })).toContain('a'.repeat(3000));
    await plain.dispose();
    const limited = await open({ BASH_MAX_OUTPUT_LENGTH: '1000' });
    const text = await bash(limited, { command });
    expect(text).not.toContain('a'.repeat(1001));
    expect(text).toContain(join(root, 'session'));
  });
});
