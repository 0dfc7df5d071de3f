import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  pruneQuarantine,
  quarantineFolder,
  resetRepositoryGuard,
  setQuarantineLimits,
  startRepositoryGuard,
} from './repository-guard.ts';

const roots: string[] = [];
afterEach(() => {
  setQuarantineLimits(undefined);
  resetRepositoryGuard();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function makeRoot(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-quarantine-')));
  roots.push(root);
  return root;
}

const day = 24 * 60 * 60 * 1000;
const now = Date.parse('2026-12-02T12:00:00.000Z');
/** The name the guard gives an entry made `daysAgo` days before `now`. */
const stamp = (daysAgo: number, serial = 1) =>
  `${new Date(now - daysAgo * day).toISOString().replace(/[:.]/g, '-')}-${serial}`;

/** An entry as the guard leaves it: the moved file and an ORIGIN note. */
function entry(root: string, name: string, bytes = 100): string {
  const folder = join(root, quarantineFolder, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, '.envrc'), 'x'.repeat(bytes));
  writeFileSync(join(folder, 'ORIGIN'), `${root}/.envrc\n`);
  return folder;
}

const left = (root: string) => readdirSync(join(root, quarantineFolder)).sort();
const limits = (over: Partial<{ maxAgeMs: number; maxEntries: number; maxBytes: number }>) => ({
  maxAgeMs: 30 * day,
  maxEntries: 1000,
  maxBytes: 1e12,
  ...over,
});

describe('the quarantine is bounded, oldest first', () => {
  it('removes entries past the age and keeps younger ones', () => {
    const root = makeRoot();
    const ages = [400, 90, 31, 29, 2, 0];
    for (const age of ages) entry(root, stamp(age));
    const removed = pruneQuarantine(root, limits({}), new Set(), now);
    expect(removed.sort()).toEqual([stamp(400), stamp(90), stamp(31)].sort());
    expect(left(root)).toEqual([stamp(29), stamp(2), stamp(0)].sort());
  });

  it('keeps at most the given number of entries, the newest', () => {
    for (const max of [0, 1, 3, 9]) {
      const root = makeRoot();
      for (let index = 0; index < 9; index++) entry(root, stamp(9 - index, index + 1));
      pruneQuarantine(root, limits({ maxEntries: max }), new Set(), now);
      const expected = Array.from({ length: 9 }, (_, index) => stamp(9 - index, index + 1))
        .slice(9 - max)
        .sort();
      expect(left(root), `max ${max}`).toEqual(expected);
    }
  });

  it('keeps at most the given size, removing the oldest first, sparse files counted at their length', () => {
    const root = makeRoot();
    entry(root, stamp(5), 4000);
    entry(root, stamp(4), 4000);
    const sparse = entry(root, stamp(3), 10);
    truncateSync(join(sparse, '.envrc'), 1024 ** 3);
    entry(root, stamp(2), 4000);
    entry(root, stamp(1), 4000);
    pruneQuarantine(root, limits({ maxBytes: 10_000 }), new Set(), now);
    expect(left(root)).toEqual([stamp(2), stamp(1)].sort());
  });

  it('never removes the entries of the command that just ran', () => {
    const root = makeRoot();
    entry(root, stamp(100));
    entry(root, stamp(0), 50_000);
    pruneQuarantine(root, limits({ maxEntries: 0, maxBytes: 0 }), new Set([stamp(100), stamp(0)]), now);
    expect(left(root)).toEqual([stamp(100), stamp(0)].sort());
  });

  it('removes links, pipes and folders inside an entry without following them', () => {
    const root = makeRoot();
    const outside = makeRoot();
    writeFileSync(join(outside, 'keep.txt'), 'mine');
    const folder = entry(root, stamp(60));
    symlinkSync(outside, join(folder, 'link'));
    mkdirSync(join(folder, '.git/hooks'), { recursive: true });
    execFileSync('mkfifo', [join(folder, 'fifo')]);
    pruneQuarantine(root, limits({}), new Set(), now);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(join(outside, 'keep.txt'))).toBe(true);
  });

  it('does nothing when the quarantine folder is a link (it would lead elsewhere)', () => {
    const root = makeRoot();
    const elsewhere = makeRoot();
    entry(elsewhere, stamp(400));
    mkdirSync(join(root, '.efferent'));
    symlinkSync(join(elsewhere, quarantineFolder), join(root, quarantineFolder));
    expect(pruneQuarantine(root, limits({}), new Set(), now)).toEqual([]);
    expect(left(elsewhere)).toEqual([stamp(400)]);
  });

  it('is applied by the guard after a command that moved something', () => {
    const root = makeRoot();
    setQuarantineLimits(limits({ maxEntries: 2 }));
    for (const age of [3, 2, 1]) entry(root, stamp(age));
    const guard = startRepositoryGuard([root]);
    writeFileSync(join(root, 'AGENTS.md'), 'planted\n');
    const report = guard.finish();
    expect(existsSync(join(root, 'AGENTS.md'))).toBe(false);
    const entries = left(root);
    expect(entries).toHaveLength(2);
    // The newest earlier entry and this command's, whose path the report gives.
    expect(entries).toContain(stamp(1));
    const moved = [...report.quarantined.values()][0] ?? '';
    expect(existsSync(moved)).toBe(true);
  });
});
