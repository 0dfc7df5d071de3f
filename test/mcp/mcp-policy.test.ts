import { mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfiguration, urlPatternMatches } from '../../src/mcp/index.ts';
import { runEfferent } from '../cli/run-efferent.ts';

let root: string;
let project: string;
let home: string;
let managed: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-mcp-policy-')));
  project = join(root, 'project');
  home = join(root, 'home');
  managed = join(root, 'etc', 'managed-settings.json');
  await mkdir(join(project, '.efferent'), { recursive: true });
  await mkdir(join(home, '.efferent'), { recursive: true });
  await mkdir(join(root, 'etc'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const write = (path: string, value: unknown) => writeFile(path, JSON.stringify(value));

const userServers = {
  github: { command: 'npx', args: ['-y', '@acme/github-mcp'] },
  sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp' },
  files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] },
  local: { type: 'sse', url: 'http://LOCALHOST:8123/sse' },
};

async function statuses(managedSettingsPath = managed) {
  const result = await loadMcpConfiguration({
    projectRoot: project,
    home,
    trusted: true,
    managedSettingsPath,
  });
  return {
    status: Object.fromEntries(result.servers.map((server) => [server.name, server.status])),
    blockedBy: Object.fromEntries(result.servers.map((server) => [server.name, server.blockedBy])),
    warnings: result.warnings,
  };
}

describe('MCP server policy (allowedMcpServers, deniedMcpServers, allowManagedMcpServersOnly)', () => {
  it('without policy keys every server is enabled', async () => {
    await write(join(home, '.efferent', 'settings.json'), { mcpServers: userServers });
    const { status, warnings } = await statuses();
    expect(Object.values(status)).toEqual(['enabled', 'enabled', 'enabled', 'enabled']);
    expect(warnings).toEqual([]);
  });

  it('the denylist matches by name, exact command line and URL pattern, and wins over the allowlist', async () => {
    await write(join(home, '.efferent', 'settings.json'), {
      mcpServers: userServers,
      allowedMcpServers: [
        { serverName: 'github' },
        { serverName: 'sentry' },
        { serverName: 'files' },
        { serverName: 'local' },
      ],
    });
    await write(managed, {
      deniedMcpServers: [
        { serverName: 'github' },
        { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-filesystem'] },
        { serverUrl: '*://localhost:*/*' },
        // The exact command line only: extra arguments do not match.
        { serverCommand: ['npx', '@acme/github-mcp'] },
      ],
    });
    const { status, blockedBy, warnings } = await statuses();
    expect(status).toEqual({ github: 'blocked', sentry: 'enabled', files: 'blocked', local: 'blocked' });
    expect(blockedBy['github']).toBe(`deniedMcpServers in ${managed} blocks it ({"serverName":"github"})`);
    expect(blockedBy['local']).toContain('serverUrl');
    const text = warnings.join('\n');
    expect(text).toContain(
      `MCP server "github" in ${join(home, '.efferent', 'settings.json')} was not started: deniedMcpServers`,
    );
    expect(text).toMatch(/MCP server "files" .* deniedMcpServers/);
  });

  it('an allowlist admits only what it names; command and URL entries take over from names for their kind', async () => {
    await write(join(home, '.efferent', 'settings.json'), { mcpServers: userServers });
    await write(managed, { allowedMcpServers: [{ serverName: 'github' }, { serverName: 'sentry' }] });
    expect((await statuses()).status).toEqual({
      github: 'enabled',
      sentry: 'enabled',
      files: 'blocked',
      local: 'blocked',
    });

    // With a serverCommand entry, a stdio server must match a command: the name "github" no longer counts.
    await write(managed, {
      allowedMcpServers: [
        { serverName: 'github' },
        { serverName: 'sentry' },
        { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-filesystem'] },
        { serverUrl: 'https://*.sentry.dev/*' },
      ],
    });
    const strict = await statuses();
    expect(strict.status).toEqual({
      github: 'blocked',
      sentry: 'enabled',
      files: 'enabled',
      local: 'blocked',
    });
    expect(strict.blockedBy['github']).toMatch(/command line matches no "serverCommand" entry/);
    expect(strict.blockedBy['local']).toMatch(/URL matches no "serverUrl" entry/);

    // An empty allowlist blocks every server.
    await write(managed, { allowedMcpServers: [] });
    expect(Object.values((await statuses()).status)).toEqual(['blocked', 'blocked', 'blocked', 'blocked']);
  });

  it('allowManagedMcpServersOnly ignores the allowlists of other files, but still merges their denylists', async () => {
    await write(join(home, '.efferent', 'settings.json'), {
      mcpServers: userServers,
      allowedMcpServers: [{ serverName: 'github' }, { serverName: 'files' }, { serverName: 'local' }],
      deniedMcpServers: [{ serverName: 'files' }],
    });
    expect((await statuses()).status).toEqual({
      github: 'enabled',
      sentry: 'blocked',
      files: 'blocked',
      local: 'enabled',
    });
    await write(managed, {
      allowManagedMcpServersOnly: true,
      allowedMcpServers: [{ serverName: 'github' }, { serverName: 'files' }],
    });
    const { status, blockedBy } = await statuses();
    expect(status).toEqual({ github: 'enabled', sentry: 'blocked', files: 'blocked', local: 'blocked' });
    expect(blockedBy['local']).toContain(`allowManagedMcpServersOnly in ${managed}`);
    // With the key and no managed allowlist, nothing may start.
    await write(managed, { allowManagedMcpServersOnly: true });
    expect(Object.values((await statuses()).status)).toEqual(['blocked', 'blocked', 'blocked', 'blocked']);
  });

  it('an untrusted project may deny servers but never widen the allowlist; bad entries are skipped with a warning', async () => {
    await write(join(home, '.efferent', 'settings.json'), {
      mcpServers: userServers,
      allowedMcpServers: [{ serverName: 'github' }, 'sentry', { serverName: 'x', serverUrl: 'https://x/*' }],
    });
    await write(join(project, '.efferent', 'settings.json'), {
      allowedMcpServers: [{ serverName: 'files' }],
      deniedMcpServers: [{ serverName: 'github' }],
    });
    const result = await loadMcpConfiguration({
      projectRoot: project,
      home,
      trusted: false,
      managedSettingsPath: managed,
    });
    expect(Object.fromEntries(result.servers.map((server) => [server.name, server.status]))).toEqual({
      github: 'blocked',
      sentry: 'blocked',
      files: 'blocked',
      local: 'blocked',
    });
    const userFile = join(home, '.efferent', 'settings.json');
    expect(result.warnings).toContain(
      `allowedMcpServers[1] in ${userFile} was skipped: an entry must be an object such as {"serverName": "github"}.`,
    );
    expect(result.warnings.join('\n')).toContain(
      `allowedMcpServers[2] in ${userFile} was skipped: an entry needs exactly one of`,
    );
  });

  it('URL patterns: * spans any characters, case is ignored, everything else is literal', () => {
    expect(urlPatternMatches('https://mcp.company.com/*', 'https://mcp.company.com/v1/mcp')).toBe(true);
    expect(urlPatternMatches('https://*.example.com/*', 'https://a.b.example.com/x')).toBe(true);
    expect(urlPatternMatches('https://*.example.com/*', 'https://example.com.evil.io/x')).toBe(false);
    expect(urlPatternMatches('http://localhost:*/*', 'http://LOCALHOST:99/sse')).toBe(true);
    expect(urlPatternMatches('https://a.com/mcp', 'https://aXcom/mcp')).toBe(false);
  });
});

describe('the policy on the command line', () => {
  it('a denied server never starts; mcp list and doctor show it blocked and why', async () => {
    const marker = join(root, 'started');
    await write(join(home, '.efferent', 'settings.json'), {
      mcpServers: { denied: { command: 'sh', args: ['-c', `touch ${marker}`] } },
    });
    await write(managed, { deniedMcpServers: [{ serverName: 'denied' }] });
    const env = { EFFERENT_MANAGED_SETTINGS: managed };
    const list = await runEfferent(['mcp', 'list'], project, home, env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^denied {2}\[user\] .* blocked: deniedMcpServers in .*managed-settings\.json blocks it/m,
    );
    expect(list.stderr).toContain('MCP server "denied"');
    const doctor = await runEfferent(['doctor', '--cwd', project], project, home, env);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(/denied \(stdio, user, .*\): blocked — deniedMcpServers in /);
    expect(doctor.stdout).not.toMatch(/deniedMcpServers .*not enforced/);
    const run = await runEfferent(['call', 'Think', '{"thought":"x"}'], project, home, env);
    expect(run.stderr).toContain('was not started: deniedMcpServers');
    await expect(stat(marker)).rejects.toThrow();
  }, 90_000);
});
