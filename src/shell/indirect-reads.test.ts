import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand, loadShellParser } from './index.ts';

beforeAll(async () => {
  await loadShellParser();
});

/** The indirect reads of the last subcommand of a line, as `kind:what`. */
function reads(command: string): string[] {
  const analysis = analyzeCommand(command, { cwd: '/srv/proj', home: '/home/user' });
  if (analysis.kind !== 'analyzed') throw new Error(`${command}: ${analysis.reason}`);
  return (analysis.subcommands.at(-1)?.indirectReads ?? []).map((read) => `${read.kind}:${read.outside}`);
}

describe('indirectReadsOf', () => {
  it.each([
    ['wc --files0-from=list', 'names:true'],
    ['wc --files0=list', 'names:true'],
    ['xargs -a list cat', 'names:true'],
    ['nice xargs --arg list timeout 5 cat', 'names:true'],
    ['find . | xargs cat', 'names:false'],
    ['find . -exec cat {} +', 'names:false'],
    ['tar cTf list out.tar', 'names:true'],
    ['strings -- @list', 'names:true'],
    ['awk \'{ ARGV[1] = "x" } 1\'', 'names:true'],
    ['sha256sum --check sums', 'names:true'],
    ['git log -p', 'history:false'],
    ['git log -GKEY', 'history:false'],
    ['git show', 'history:false'],
    ['git show --stat v1.0', 'history:false'],
    ['git diff HEAD -- a', 'history:false'],
    ['git grep x HEAD -- src', 'history:false'],
    ['git cat-file -p abc123', 'history:false'],
    ['git notes show', 'history:false'],
    ['git diff -- "*.env"', 'history:false'],
    ['git log --stdin', 'names:false'],
  ])('%s reads what its words do not show (%s)', (command, expected) => {
    expect(reads(command)).toContain(expected);
  });

  it.each([
    'cat README.md',
    'xargs echo',
    'wc -l a b',
    'git log --oneline',
    'git log -p -- src',
    'git show HEAD:src/a.ts',
    'git show -s HEAD~1',
    'git diff --stat',
    'git diff HEAD~2..HEAD -- src/a.ts',
    'git grep -e x -- src',
    'git blame src/a.ts',
    'git cat-file -t HEAD',
    'git cat-file -p HEAD:src/a.ts',
    'git status',
    "awk '{print $1}' a",
    'git add -A',
    'git commit -m "update parser"',
  ])('%s reads only what its words show', (command) => {
    expect(reads(command)).toEqual([]);
  });
});
