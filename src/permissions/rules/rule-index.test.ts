import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isInsideDirectory } from '../paths/canonical-path.ts';
import { type DefaultShellAnalyzer, loadDefaultShellAnalyzer } from '../default-shell.ts';
import { evaluatePermission } from '../decide/evaluate-permission.ts';
import { findPathRule, findToolWideRule } from '../decide/rule-match.ts';
import { createWorkspace } from '../decide/workspace.ts';
import { lexicalRealpath } from '../paths/canonical-path.ts';
import { buildRules } from './build-rules.ts';
import { compileDomainPattern, domainMatches, hostOfUrl } from './domain-pattern.ts';
import { anchorPathPattern } from './path-pattern.ts';
import { indexPathRules } from './path-rule-index.ts';
import { compileRuleSet } from './rule-index.ts';
import type { PermissionRule } from './rule-types.ts';
import { compileShellPattern, matchesShellPattern } from './shell-pattern.ts';
import { indexShellRules } from './shell-rule-index.ts';

const cwd = '/srv/proj';
const home = '/home/user';
const workspace = createWorkspace({
  cwd,
  projectRoot: cwd,
  home,
  additionalDirectories: [],
  realpath: lexicalRealpath,
});
const origin = { source: 'projectSettings' as const, origin: 'the test', root: cwd };
const rules = (texts: string[], behavior: 'allow' | 'deny' | 'ask' = 'deny') =>
  buildRules(texts, behavior, origin).rules;

// Words and fragments chosen so generated rules and texts collide often.
const words = [
  'git',
  'rm',
  'Git',
  'FOO=1',
  'sudo',
  '/usr/bin/rm',
  '\\rm',
  '=rm',
  'env',
  'push',
  '-rf',
  '--force',
  '',
];
const shellPieces = [...words, ' ', '  ', '*', '\\*', ':*', '\t', '\n', 'a', 'rm*', '*rm'];
const shellText = fc.array(fc.constantFrom(...shellPieces), { maxLength: 6 }).map((parts) => parts.join(''));
const commandText = fc
  .array(fc.constantFrom(...words, ' ', '\t', 'x', '/'), { maxLength: 7 })
  .map((parts) => parts.join(''));

describe('the shell rule index', () => {
  it('finds the same rule as trying every rule in order, for any patterns and texts', () => {
    fc.assert(
      fc.property(
        fc.array(shellText, { maxLength: 12 }),
        fc.array(commandText, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (patterns, texts, exactOnly) => {
          const list = rules(patterns.map((pattern) => `Bash(${pattern})`));
          const accept = exactOnly ? (pattern: { kind: string }) => pattern.kind === 'exact' : undefined;
          const linear = list.find((rule) => {
            const pattern = compileShellPattern(rule.value.ruleContent ?? '');
            if (accept && !accept(pattern)) return false;
            return texts.some((text) => matchesShellPattern(pattern, text));
          });
          expect(indexShellRules(list).find(texts, accept)).toBe(linear);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('tries rules whose first word is a wildcard, or carries an env prefix or a path, on every text', () => {
    const list = rules(['Bash(*rm -rf*)', 'Bash(FOO=1 git *)', 'Bash(/usr/bin/rm *)', 'Bash(git*)']);
    const index = indexShellRules(list);
    expect(index.find(['sudo rm -rf /'])?.text).toBe('Bash(*rm -rf*)');
    expect(index.find(['FOO=1 git push'])?.text).toBe('Bash(FOO=1 git *)');
    expect(index.find(['/usr/bin/rm x'])?.text).toBe('Bash(/usr/bin/rm *)');
    expect(index.find(['gitk'])?.text).toBe('Bash(git*)');
    expect(index.find(['ls'])).toBeUndefined();
  });
});

const pathPieces = [
  'src',
  'SRC',
  'secrets',
  '.env',
  '**',
  '*',
  '*.ts',
  'a.ts',
  '.ssh',
  'x',
  '..',
  '.',
  'Ü',
  '[ab]',
  '?',
];
const pathPattern = fc
  .tuple(
    fc.constantFrom('', './', '/', '//', '~/', '~', '//srv/proj/', '//home/user/'),
    fc.array(fc.constantFrom(...pathPieces), { maxLength: 4 }),
    fc.constantFrom('', '/'),
  )
  .map(([prefix, parts, suffix]) => `${prefix}${parts.join('/')}${suffix}`)
  .filter((pattern) => pattern !== '');
const absolutePath = fc
  .tuple(
    fc.constantFrom('/srv/proj', '/srv/PROJ', '/home/user', '/', '/srv', '/proc/self/root/srv/proj', '/etc'),
    fc.array(fc.constantFrom('src', 'SRC', 'secrets', '.env', 'a.ts', '.ssh', 'x', 'Ü', 'a', 'b.ts', 'x.'), {
      maxLength: 4,
    }),
  )
  .map(([base, parts]) => join(base, ...parts));

describe('the path rule index', () => {
  it('finds the same rule as trying every rule in order (deny, ask and allow lookups, any spelling)', () => {
    fc.assert(
      fc.property(
        fc.array(pathPattern, { maxLength: 10 }),
        absolutePath,
        absolutePath,
        fc.constantFrom('deny', 'ask', 'allow') as fc.Arbitrary<'deny' | 'ask' | 'allow'>,
        (patterns, lexical, physical, lookup) => {
          const list = rules(
            patterns.map((pattern) => `Read(${pattern})`),
            lookup,
          );
          const path = { lexical, physical };
          const index = indexPathRules(list, lookup, { cwd, home });
          expect(index.find(path)).toBe(findPathRule(list, path, lookup, workspace));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('answers the directory questions (a rule inside, a rule around) as a scan of every rule does', () => {
    const prefixOf = (rule: PermissionRule) => {
      const anchored = anchorPathPattern(rule.value.ruleContent ?? '', rule.behavior, {
        root: rule.root,
        cwd,
        home,
      });
      if (!anchored.pattern.startsWith('/')) return anchored.base;
      return join(anchored.base, anchored.pattern.split(/[*?[]/)[0] ?? '');
    };
    fc.assert(
      fc.property(fc.array(pathPattern, { maxLength: 12 }), absolutePath, (patterns, directory) => {
        const list = rules(patterns.map((pattern) => `Read(${pattern})`));
        const index = indexPathRules(list, 'deny', { cwd, home });
        const inside = list.find((rule) => isInsideDirectory(prefixOf(rule), directory));
        const around = list.find(
          (rule) =>
            isInsideDirectory(prefixOf(rule), directory) || isInsideDirectory(directory, prefixOf(rule)),
        );
        expect(index.firstInside([directory])).toBe(inside);
        expect(index.firstAround([directory])).toBe(around);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds deny rules written with **, ~, //abs and another case', () => {
    const list = rules(['Read(**/.env)', 'Read(~/.ssh/**)', 'Read(//etc/shadow)', 'Read(/Secrets/**)']);
    const index = indexPathRules(list, 'deny', { cwd, home });
    const at = (path: string) => index.find({ lexical: path, physical: path })?.text;
    expect(at('/srv/proj/deep/down/.env')).toBe('Read(**/.env)');
    expect(at('/home/user/.ssh/id_rsa')).toBe('Read(~/.ssh/**)');
    expect(at('/proc/self/root/etc/shadow')).toBe('Read(//etc/shadow)');
    expect(at('/srv/proj/secrets/key')).toBe('Read(/Secrets/**)');
    expect(at('/srv/proj/config/.ENV')).toBe('Read(**/.env)');
    expect(at('/srv/proj/src/a.ts')).toBeUndefined();
  });
});

describe('the domain, tool-wide and MCP server indexes', () => {
  const hosts = [
    'example.com',
    'a.example.com',
    'b.a.example.com',
    'evil.test',
    'localhost',
    '127.0.0.1',
    'x.y',
  ];
  const domainPatterns = [
    'example.com',
    '*.example.com',
    'a.*.com',
    '*.com',
    '*',
    'evil.*',
    'example.com:443',
    'x.y',
  ];
  it('finds the same domain rule as a scan', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...domainPatterns), { maxLength: 8 }),
        fc.constantFrom(...hosts),
        (patterns, host) => {
          const list = rules(patterns.map((pattern) => `WebFetch(domain:${pattern})`));
          const url = hostOfUrl(`https://${host}/`);
          if ('invalid' in url) throw new Error(url.invalid);
          const linear = list.find((rule) =>
            domainMatches(compileDomainPattern((rule.value.ruleContent ?? '').slice(7)), url),
          );
          const index = compileRuleSet({ allow: [], deny: list, ask: [] });
          expect(index.deny.content(['WebFetch'], {}).domains().find(url)).toBe(linear);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('finds the same tool-wide rule as a scan, MCP servers and globs included', () => {
    const names = [
      'Bash',
      'Read',
      'mcp__srv',
      'mcp__srv__tool',
      'mcp__*',
      'mcp__srv_x',
      'Task',
      'Agent',
      '*',
    ];
    const tools = [
      'Bash',
      'Read',
      'mcp__srv__tool',
      'mcp__srv__other',
      'mcp__srv_x__tool',
      'mcp__other__a__b',
      'Agent',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...names), { maxLength: 8 }),
        fc.constantFrom(...tools),
        (ruleNames, tool) => {
          const list = rules(ruleNames);
          const subject = { name: tool, aliases: tool === 'Agent' ? ['Task'] : [] };
          const index = compileRuleSet({ allow: [], deny: list, ask: [] });
          expect(index.deny.toolWide(subject)).toBe(findToolWideRule(list, subject));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('commands past the limits', () => {
  let shell: DefaultShellAnalyzer;
  beforeAll(async () => {
    const loaded = await loadDefaultShellAnalyzer();
    if (!loaded) throw new Error('the shell analyser did not load');
    shell = loaded;
  });
  const decide = (command: string, ruleSet: { allow?: string[]; deny?: string[] }) =>
    evaluatePermission({
      tool: { name: 'Bash', aliases: [] },
      input: { command },
      target: { kind: 'command', command, shell: 'bash' },
      readOnly: null,
      mode: 'default',
      rules: { allow: rules(ruleSet.allow ?? [], 'allow'), deny: rules(ruleSet.deny ?? []), ask: [] },
      workspace,
      shell,
    });

  it('ask without suggesting rules when more than 50 subcommands are allowed by a rule', () => {
    const command = Array.from({ length: 60 }, (_, index) => `npm run task${index}`).join(' && ');
    const result = decide(command, { allow: ['Bash(npm run *)'] });
    expect(result.behavior).toBe('ask');
    expect(result.message).toContain('more than 50 subcommands');
    expect(result.suggestions ?? []).toEqual([]);
  });

  it('still deny when one piece matches a deny rule, parsed or not', () => {
    const parsed = [...Array.from({ length: 60 }, () => 'npm test'), 'rm -rf build'].join(' && ');
    expect(decide(parsed, { allow: ['Bash(npm *)'], deny: ['Bash(rm -rf *)'] }).behavior).toBe('deny');
    const piece = 'echo 0123456789 && ';
    const huge = `${piece.repeat(60_000)}rm -rf build`;
    const result = decide(huge, { deny: ['Bash(rm -rf *)'] });
    expect(result.behavior).toBe('deny');
    expect(result.message).toContain('Bash(rm -rf *)');
    expect(decide(`${piece.repeat(60_000)}true`, { deny: ['Bash(rm -rf *)'] }).behavior).toBe('ask');
  });
});
