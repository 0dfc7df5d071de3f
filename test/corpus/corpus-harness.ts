import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One case of the security corpus (`test/corpus/*.json`). */
export interface CorpusCase {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  mode: string;
  rules: { allow: string[]; deny: string[]; ask: string[] };
  expect: 'allow' | 'deny' | 'ask' | 'not-allow';
  readOnly: boolean | null;
  why: string;
  source: string;
  home?: string;
  /** The attack class a case belongs to (`git-config`, `heredoc`, `paths`, `indirect-read`, `sandbox`, `trust-modes`, `too-careful`). */
  class?: string;
  /** Shell lines that build a fixture (symlinks) inside the case's directories. */
  setup?: string[];
}

/** The corpus convention: cases live in /srv/proj with the home directory /home/user. */
export const corpusHome = '/home/user';

/** Reads a corpus file. */
export function readCorpus(path: string): CorpusCase[] {
  return JSON.parse(readFileSync(path, 'utf8')) as CorpusCase[];
}

/** Whether a decision satisfies a case's expectation. */
export function meetsExpectation(expect: CorpusCase['expect'], behavior: string): boolean {
  return expect === 'not-allow' ? behavior === 'deny' || behavior === 'ask' : behavior === expect;
}

/** A case as `efferent check --jsonl` reads it. */
export function toCheckLine(item: CorpusCase): Record<string, unknown> {
  return { id: item.id, tool: item.tool, input: item.input, cwd: item.cwd, mode: item.mode, rules: item.rules, home: item.home ?? corpusHome };
}

/**
 * Cases with `setup` need real files: their absolute directories (`/srv/…`, `/home/…`, `/tmp/…`)
 * are moved under a temporary root, the setup lines run there with the same rewrite, and the case
 * is rewritten to match. Returns the rewritten case and a cleanup function.
 */
export function materialise(item: CorpusCase): { item: CorpusCase; cleanup: () => void } {
  if (!item.setup || item.setup.length === 0) return { item, cleanup: () => {} };
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-corpus-')));
  const home = item.home ?? corpusHome;
  const prefixes = [...new Set(['/srv/', '/home/', '/tmp/', `${home}/`])];
  const rewrite = (text: string) => {
    let result = text;
    for (const prefix of prefixes) result = result.replace(new RegExp(`(^|[\\s"'=])${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'g'), `$1${root}${prefix}`);
    return result;
  };
  const rewritten: CorpusCase = JSON.parse(rewrite(JSON.stringify({ ...item, home }))) as CorpusCase;
  rewritten.cwd = rewrite(item.cwd);
  rewritten.home = rewrite(home);
  mkdirSync(rewritten.cwd, { recursive: true });
  mkdirSync(rewritten.home, { recursive: true });
  for (const line of item.setup) {
    const command = rewrite(line);
    for (const word of command.split(/\s+/)) if (word.startsWith(root)) mkdirSync(dirname(word), { recursive: true });
    execFileSync('sh', ['-c', command], { cwd: rewritten.cwd, stdio: 'ignore' });
  }
  return { item: rewritten, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
