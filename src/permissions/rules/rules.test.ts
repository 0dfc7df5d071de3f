import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EfferentError } from '../../core/index.ts';
import { compileDomainPattern, domainMatches, hostOfUrl } from './domain-pattern.ts';
import { parseRule, printRule } from './parse-rule.ts';
import { compileShellPattern, matchesShellPattern } from './shell-pattern.ts';
import { isAnchoredAllowGlob, toolNameMatches } from './tool-names.ts';

describe('parseRule / printRule', () => {
  it.each([
    ['Bash', { toolName: 'Bash' }],
    ['Bash()', { toolName: 'Bash' }],
    ['Bash(*)', { toolName: 'Bash' }],
    ['Bash(git *)', { toolName: 'Bash', ruleContent: 'git *' }],
    ['Bash(npm run test:*)', { toolName: 'Bash', ruleContent: 'npm run test:*' }],
    ['Bash(echo \\(hi\\))', { toolName: 'Bash', ruleContent: 'echo (hi)' }],
    ['Bash(printf a\\\\b)', { toolName: 'Bash', ruleContent: 'printf a\\b' }],
    ['Task(Explore)', { toolName: 'Agent', ruleContent: 'Explore' }],
    ['KillShell', { toolName: 'TaskStop' }],
    ['BashOutputTool', { toolName: 'TaskOutput' }],
    ['mcp__github__*', { toolName: 'mcp__github__*' }],
    ['WebFetch(domain:example.com)', { toolName: 'WebFetch', ruleContent: 'domain:example.com' }],
    ['Read(./secrets/**)', { toolName: 'Read', ruleContent: './secrets/**' }],
  ])('%s', (text, value) => {
    expect(parseRule(text)).toEqual(value);
    expect(parseRule(printRule(parseRule(text)))).toEqual(value);
  });

  it.each(['', 'Bash(', 'Bash(git', 'Ba sh', 'Bash(x\\)', '(x)'])('rejects %j with rule_invalid', (text) => {
    expect(() => parseRule(text)).toThrow(EfferentError);
  });

  it('round-trips any content through print and parse', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((content) => content !== '*' && content.trim() === content),
        (content) => {
          const value = { toolName: 'Bash', ruleContent: content };
          expect(parseRule(printRule(value))).toEqual(value);
        },
      ),
      { numRuns: Number(process.env.EFFERENT_FUZZ_RUNS ?? 500) },
    );
  });
});

describe('tool names', () => {
  it('matches MCP servers, globs and aliases', () => {
    expect(toolNameMatches('mcp__github', 'mcp__github__create_issue')).toBe(true);
    expect(toolNameMatches('mcp__github', 'mcp__github2__x')).toBe(false);
    expect(toolNameMatches('mcp__github__*', 'mcp__github__create_issue')).toBe(true);
    expect(toolNameMatches('mcp__*', 'mcp__a__b')).toBe(true);
    expect(toolNameMatches('*', 'Bash')).toBe(true);
    expect(toolNameMatches('Agent', 'Agent', ['Task'])).toBe(true);
    expect(toolNameMatches('Bash', 'BashOutput')).toBe(false);
    expect(isAnchoredAllowGlob('mcp__github__*')).toBe(true);
    expect(isAnchoredAllowGlob('mcp__*')).toBe(false);
    expect(isAnchoredAllowGlob('*')).toBe(false);
  });
});

describe('shell patterns', () => {
  const matches = (pattern: string, command: string) =>
    matchesShellPattern(compileShellPattern(pattern), command);
  it.each([
    ['ls *', 'ls -la', true],
    ['ls *', 'ls', true],
    ['ls *', 'lsof', false],
    ['ls:*', 'ls -la', true],
    ['ls:*', 'lsof', false],
    ['npm run test:*', 'npm run test:e2e', false],
    ['npm run test:*', 'npm run test --watch', true],
    ['npm run test *', 'npm run test:e2e', false],
    ['git * main', 'git push origin main', true],
    ['git * main', 'git push origin main2', false],
    ['npm run build', 'npm run build', true],
    ['npm run build', 'npm run build --prod', false],
    ['echo \\*', 'echo *', true],
    ['echo \\*', 'echo x', false],
    ['git diff*', 'git difftool', true],
    ['rm *', 'rm -rf /\n', true],
  ])('%j vs %j → %s', (pattern, command, expected) => {
    expect(matches(pattern, command)).toBe(expected);
  });
});

describe('domain patterns', () => {
  const allows = (pattern: string, url: string) => {
    const host = hostOfUrl(url);
    return !('invalid' in host) && domainMatches(compileDomainPattern(pattern), host);
  };
  it.each([
    ['example.com', 'https://EXAMPLE.com/docs', true],
    ['example.com', 'https://example.com./x', true],
    ['example.com', 'https://notexample.com/', false],
    ['example.com', 'https://example.com.evil.com/', false],
    ['example.com', 'http://example.com@evil.com/', false],
    ['example.com', 'http://evil.com#example.com', false],
    ['example.com', 'http://evil.com/?u=example.com', false],
    ['example.com', 'https://example.com:8443/', true],
    ['example.com:443', 'https://example.com/', true],
    ['example.com:443', 'https://example.com:8443/', false],
    ['example.com', 'https://ex\u0430mple.com/', false],
    ['example.com', 'https://sub.example.com/', false],
    ['*.example.com', 'https://a.b.example.com/', true],
    ['*.example.com', 'https://example.com/', false],
    ['example.*', 'https://example.org/', true],
    ['example.*', 'https://example.evil.com/', false],
    ['127.0.0.1', 'http://2130706433/', true],
    ['b\u00fccher.de', 'https://xn--bcher-kva.de/', true],
  ])('%j vs %j → %s', (pattern, url, expected) => {
    expect(allows(pattern, url)).toBe(expected);
  });
  it('refuses non-http schemes and junk', () => {
    expect(hostOfUrl('file:///etc/passwd')).toHaveProperty('invalid');
    expect(hostOfUrl('not a url')).toHaveProperty('invalid');
  });
});
