import { describe, expect, it } from 'vitest';
import { classifyEnvVar } from './index.ts';

describe('classifyEnvVar', () => {
  it.each([
    'LANG',
    'LC_ALL',
    'LC_CTYPE',
    'TZ',
    'NO_COLOR',
    'FORCE_COLOR',
    'CI',
    'RUST_BACKTRACE',
    'RUST_LOG',
    'NODE_ENV',
    'PYTHONUNBUFFERED',
    'PYTHONDONTWRITEBYTECODE',
    'GOOS',
    'GOARCH',
    'CGO_ENABLED',
    'LS_COLORS',
    'TERM',
  ])('%s is safe', (name) => {
    expect(classifyEnvVar(name)).toBe('safe');
  });

  it.each([
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'PATH',
    'GIT_SSH_COMMAND',
    'GIT_EXTERNAL_DIFF',
    'GIT_CONFIG_PARAMETERS',
    'GIT_CONFIG_COUNT',
    'GIT_PAGER',
    'PAGER',
    'EDITOR',
    'VISUAL',
    'NODE_OPTIONS',
    'PYTHONPATH',
    'PYTHONSTARTUP',
    'PERL5OPT',
    'RUBYOPT',
    'BASH_ENV',
    'ENV',
    'PROMPT_COMMAND',
    'IFS',
    'BROWSER',
    'SSH_ASKPASS',
    'LESSOPEN',
    'BASH_FUNC_ls%%',
    'JAVA_TOOL_OPTIONS',
    'HOME',
    'ZDOTDIR',
    'ANTHROPIC_BASE_URL',
    'npm_config_script_shell',
  ])('%s is dangerous', (name) => {
    expect(classifyEnvVar(name)).toBe('dangerous');
  });

  it.each(['FOO', 'MY_FLAG', 'VERSION_TAG', 'lowercase'])('%s is neutral', (name) => {
    expect(classifyEnvVar(name)).toBe('neutral');
  });
});
