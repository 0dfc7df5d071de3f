import { describe, expect, it } from 'vitest';
import { parseSettingsLenient } from './lenient-settings.ts';
import { unusedSettingsKeys } from './settings-keys.ts';

describe('unusedSettingsKeys', () => {
  it('reports every sandbox key efferent does not apply, with the reason, and none it applies', () => {
    const text = JSON.stringify({
      sandbox: {
        enabled: true,
        excludedCommands: ['docker'],
        autoAllowBashIfSandboxed: true,
        network: { allowedDomains: ['registry.npmjs.org'] },
        filesystem: { denyRead: ['~/.aws'] },
        someFutureKey: 1,
      },
      permissions: { allow: ['Bash(npm test)'] },
    });
    const parsed = parseSettingsLenient(text, '/p/.claude/settings.json');
    if (!parsed.settings) throw new Error('the settings did not parse');
    const unused = unusedSettingsKeys([
      {
        source: 'projectSettings',
        origin: '/p/.claude/settings.json',
        root: '/p',
        projectLevel: true,
        settings: parsed.settings,
      },
    ]);
    const keys = unused.map((entry) => entry.key);
    expect(keys).toEqual([
      'sandbox.enabled',
      'sandbox.excludedCommands',
      'sandbox.autoAllowBashIfSandboxed',
      'sandbox.someFutureKey',
    ]);
    expect(unused.find((entry) => entry.key === 'sandbox.excludedCommands')?.reason).toMatch(/asks/);
    expect(unused.find((entry) => entry.key === 'sandbox.someFutureKey')?.reason).toMatch(
      /not a sandbox key/,
    );
  });
});
