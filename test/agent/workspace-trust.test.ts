import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createSession, isWorkspaceTrusted, trustStorePath, trustWorkspace } from '../../src/agent/index.ts';
import { toolResultText } from '../../src/core/index.ts';
import { createTempWorkspace } from '../../src/testing/index.ts';

describe('workspace trust', () => {
  it('ignores a project allow rule until the user trusts the folder; deny rules apply either way', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using project = await createTempWorkspace({
      files: {
        '.efferent/settings.json': JSON.stringify({
          permissions: { allow: ['Bash(touch *)'], deny: ['Bash(touch secret*)'] },
        }),
      },
    });
    expect(await isWorkspaceTrusted(home.dir, project.dir)).toBe(false);

    {
      await using untrusted = await createSession({ cwd: project.dir, home: home.dir });
      expect(untrusted.settings.trusted).toBe(false);
      expect((await untrusted.callTool('Bash', { command: 'touch a.txt' })).isError).toBe(true);
      expect(toolResultText(await untrusted.callTool('Bash', { command: 'touch secret.txt' }))).toContain(
        'Bash(touch secret*)',
      );
      expect(untrusted.settings.notices.join('\n')).toMatch(/not trusted/);
    }

    await trustWorkspace(home.dir, project.dir);
    expect(JSON.parse(await readFile(trustStorePath(home.dir), 'utf8'))).toEqual({ trusted: [project.dir] });
    expect(await isWorkspaceTrusted(home.dir, project.dir)).toBe(true);
    {
      await using trusted = await createSession({ cwd: project.dir, home: home.dir });
      expect((await trusted.callTool('Bash', { command: 'touch b.txt' })).isError ?? false).toBe(false);
      expect((await trusted.callTool('Bash', { command: 'touch secret2.txt' })).isError).toBe(true);
      // An explicit option still wins over the stored trust.
      await using forced = await createSession({ cwd: project.dir, home: home.dir, trusted: false });
      expect((await forced.callTool('Bash', { command: 'touch c.txt' })).isError).toBe(true);
    }
  });

  it('trusts exactly the folder, not its parent or a sibling with a shared prefix', async () => {
    await using home = await createTempWorkspace({ prefix: 'efferent-home-' });
    await using parent = await createTempWorkspace({ files: { 'app/x': '', 'app2/y': '' } });
    await trustWorkspace(home.dir, parent.path('app'));
    expect(await isWorkspaceTrusted(home.dir, parent.path('app'))).toBe(true);
    expect(await isWorkspaceTrusted(home.dir, parent.path('app2'))).toBe(false);
    expect(await isWorkspaceTrusted(home.dir, parent.dir)).toBe(false);
  });
});
