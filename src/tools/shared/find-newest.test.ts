import { spawn } from 'node:child_process';
import {
  chmodSync,
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkGnuFind, findStartingPoints, globFind, newestThroughFind } from './find-newest.ts';
import { mtimeOf, NewestFirst } from './newest-first.ts';

let root: string;
let scratch: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'efferent-find-newest-'));
  scratch = await mkdtemp(join(tmpdir(), 'efferent-find-scratch-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

const excluded = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl', 'node_modules'];
const find = await globFind(process.env);

const bytes = (path: string) => Buffer.from(path);
const invalid = (before: string, after: string) =>
  Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);

/**
 * Files that must be listed (`*.ts` regular files outside excluded directories) and files that must
 * not, with names that trip up a careless lister: newlines, spaces, leading dashes, quotes, bytes
 * that are not UTF-8, UTF-8 whose UTF-16 order differs from its byte order, hidden files.
 */
const listedNames: Buffer[] = [
  ...Array.from({ length: 30 }, (_, index) => bytes(`d${index % 3}/f${(index * 7) % 30}.ts`)),
  bytes('top.ts'),
  bytes('.hidden.ts'),
  bytes('.ts'),
  bytes('-dash.ts'),
  bytes('-dir/-x.ts'),
  bytes('sp ace/a b.ts'),
  bytes("quo'te/it's.ts"),
  bytes('d0/line\nbreak.ts'),
  bytes('d1/é.ts'),
  bytes('d1/\u{1F600}.ts'),
  bytes('d1/\uFF61.ts'),
  bytes('.hid/deep/er/x.ts'),
  bytes('build/ignored.ts'),
  invalid('d2/bad', '.ts'),
  invalid('d2/', 'dir/in.ts'),
];
const unlistedNames: Buffer[] = [
  bytes('d0/f0.js'),
  bytes('node_modules/pkg/index.ts'),
  bytes('d1/node_modules/x.ts'),
  bytes('.git/hooks/h.ts'),
  bytes('d2/.git/y.ts'),
  bytes('ts'),
];

function makeTree(): void {
  for (const name of [...listedNames, ...unlistedNames]) {
    const full = Buffer.concat([Buffer.from(`${root}/`), name]);
    mkdirSync(full.subarray(0, full.lastIndexOf(0x2f)), { recursive: true });
    writeFileSync(full, '');
  }
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  // A `.git` file (a worktree's), links to a file, to nothing and to a directory: none listed.
  writeFileSync(join(root, 'd1', '.git'), 'gitdir: elsewhere\n');
  symlinkSync('d0/f0.ts', join(root, 'link.ts'));
  symlinkSync('nowhere.ts', join(root, 'dangling.ts'));
  symlinkSync('d0', join(root, 'linkdir'));
}

/** What ripgrep's `--files` lists, found independently: regular files (links not followed), excluded names skipped. */
function walk(directory: Buffer, relative: Buffer[] = []): Buffer[][] {
  const found: Buffer[][] = [];
  const entries = readdirSync(directory, {
    withFileTypes: true,
    encoding: 'buffer',
  }) as unknown as Dirent<Buffer>[];
  for (const entry of entries) {
    if (excluded.includes(entry.name.toString('latin1'))) continue;
    const path = [...relative, entry.name];
    const full = Buffer.concat([directory, Buffer.from('/'), entry.name]);
    if (entry.isDirectory()) found.push(...walk(full, path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** The newest `limit` `*.ts` files by a global sort of what Node's stat says of each decoded name, ties by name. */
function expectedNewest(limit: number): string[] {
  return walk(Buffer.from(root))
    .filter((parts) => (parts[parts.length - 1] as Buffer).toString('latin1').endsWith('.ts'))
    .map((parts) =>
      Buffer.concat(parts.flatMap((part, index) => (index ? [Buffer.from('/'), part] : [part]))),
    )
    .map((name) => {
      const path = name.toString('utf8');
      return { path, time: mtimeOf(`${root}/${path}`) };
    })
    .sort((a, b) =>
      a.time !== b.time ? (a.time > b.time ? -1 : 1) : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    )
    .slice(0, limit)
    .map(({ path }) => path);
}

async function newest(limit: number, processes?: number): Promise<string[] | undefined> {
  const found = await newestThroughFind({
    find: find as string,
    root,
    name: '*.ts',
    excluded,
    limit,
    ...(processes ? { processes } : {}),
  });
  if (!found) return undefined;
  const order = new NewestFirst(root, limit);
  order.merge(found.stamped);
  return order.ordered();
}

describe('GNU find as a Glob source', () => {
  it('is found on this machine, checked, and can be turned off', async () => {
    expect(find, 'GNU find in /usr/bin or /bin').toMatch(/^\/(usr\/)?bin\/find$/);
    expect(await checkGnuFind(find as string)).toBe(find);
    expect(await globFind({ EFFERENT_GLOB_FIND: '0' })).toBeUndefined();
    // A find that is not GNU's (no -printf) is not used.
    const other = join(scratch, 'find');
    writeFileSync(other, '#!/bin/sh\necho "find (BSD) 1.0"\n');
    chmodSync(other, 0o755);
    expect(await checkGnuFind(other)).toBeUndefined();
  });

  it('gives the newest files as a global sort by mtime and name would, for any times, limits and process counts', async () => {
    makeTree();
    const epoch = Date.UTC(2026, 0, 1) / 1000;
    await fc.assert(
      fc.asyncProperty(
        // Few distinct seconds (many ties), and fractions that differ below a microsecond.
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(0, 0.25, 0.0000001, 0.0000003)), {
          minLength: listedNames.length,
          maxLength: listedNames.length,
        }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 4 }),
        async (ages, limit, processes) => {
          listedNames.forEach((name, index) => {
            const [age, fraction] = ages[index] as [number, number];
            const time = epoch - age + fraction;
            utimesSync(Buffer.concat([Buffer.from(`${root}/`), name]), time, time);
          });
          const expected = expectedNewest(limit);
          expect(await newest(limit, processes)).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
    // Every file listed once, none of the others.
    const all = await newest(1000);
    expect(all).toHaveLength(listedNames.length);
    expect(new Set(all).size).toBe(listedNames.length);
    expect(all).toEqual(expectedNewest(1000));
  });

  it('spreads a root with one big directory over the processes, and lists the root’s files once', async () => {
    for (let index = 0; index < 12; index++) mkdirSync(join(root, 'big', `sub${index}`), { recursive: true });
    writeFileSync(join(root, 'top.ts'), '');
    mkdirSync(join(root, 'node_modules'));
    const groups = (await findStartingPoints(root, excluded, 2)) as string[][];
    expect(groups).toHaveLength(2);
    const starts = groups.flat().sort();
    expect(starts).toEqual([
      ...Array.from({ length: 12 }, (_, index) => `./big/sub${index}`).sort(),
      './top.ts',
    ]);
    for (const group of groups) expect(group.length).toBeGreaterThanOrEqual(6);
    // One big directory among many small ones is split between the processes.
    await rm(join(root, 'big'), { recursive: true });
    for (let index = 0; index < 40; index++)
      mkdirSync(join(root, 'pkg0', `mod${index}`), { recursive: true });
    for (let pkg = 1; pkg < 10; pkg++)
      for (let index = 0; index < 2; index++)
        mkdirSync(join(root, `pkg${pkg}`, `mod${index}`), { recursive: true });
    const skewed = (await findStartingPoints(root, excluded, 2)) as string[][];
    expect(skewed.flat()).not.toContain('./pkg0');
    expect(skewed.flat().filter((start) => start.startsWith('./pkg0/'))).toHaveLength(40);
    for (const group of skewed)
      expect(group.filter((start) => start.startsWith('./pkg0/')).length).toBeGreaterThan(10);
    // A name find could not be given as an argument: not used (the caller lists another way).
    writeFileSync(invalid(`${root}/`, '.ts'), '');
    expect(await findStartingPoints(root, excluded, 2)).toBeUndefined();
  });

  it('never lists a wrong answer while files are created and deleted under it', async () => {
    const stable = Array.from({ length: 150 }, (_, index) => `s${index % 5}/f${index}.ts`);
    stable.forEach((path, index) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '');
      utimesSync(join(root, path), 1_700_000_000 + index, 1_700_000_000 + index);
    });
    mkdirSync(join(root, 'churn'));
    // Files older than every stable one appear and vanish while find walks.
    const churn = spawn(
      '/bin/sh',
      [
        '-c',
        'i=0; while :; do i=$((i+1)); touch -d @1000 churn/$((i%50)).ts; rm -f churn/$(((i+25)%50)).ts; done',
      ],
      { cwd: root, stdio: 'ignore', detached: true },
    );
    try {
      const expected = stable
        .map((path, index) => ({ path, index }))
        .sort((a, b) => b.index - a.index)
        .slice(0, 101)
        .map(({ path }) => path);
      // A find that fails under the churn gives no answer (the caller falls back to another source);
      // an answer it gives must be the right one, and most runs give one.
      let answered = 0;
      for (let run = 0; run < 15; run++) {
        const listed = await newest(101);
        if (listed === undefined) continue;
        answered++;
        expect(listed).toEqual(expected);
      }
      expect(answered).toBeGreaterThan(7);
    } finally {
      const ended = new Promise((resolve) => churn.once('exit', resolve));
      process.kill(-(churn.pid as number), 'SIGKILL');
      await ended;
      // A `touch` it started may still be finishing.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('runs find with a fixed environment, and kills every find when aborted', async () => {
    for (let index = 0; index < 12; index++) mkdirSync(join(root, `d${index}`));
    const pids = join(scratch, 'pids');
    const fake = join(scratch, 'find');
    writeFileSync(fake, `#!/bin/sh\nenv > ${scratch}/env-$$\necho $$ >> ${pids}\nexec sleep 30\n`);
    chmodSync(fake, 0o755);
    process.env['POSIXLY_CORRECT'] = '1';
    const outputs = join(scratch, 'tmp');
    mkdirSync(outputs);
    const savedTmp = process.env['TMPDIR'];
    process.env['TMPDIR'] = outputs;
    const controller = new AbortController();
    const pending = newestThroughFind({
      find: fake,
      root,
      excluded,
      limit: 5,
      processes: 3,
      signal: controller.signal,
    });
    const started = () => (existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n') : []);
    try {
      while (started().length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      delete process.env['POSIXLY_CORRECT'];
      if (savedTmp === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = savedTmp;
    }
    expect(readdirSync(outputs)).toHaveLength(1);
    controller.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    const running = (pid: string) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let attempt = 0; attempt < 100 && started().some(running); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started().filter(running)).toEqual([]);
    const env = readFileSync(join(scratch, `env-${started()[0]}`), 'utf8');
    expect(env).toContain('LC_ALL=C');
    // Its output files are gone with it.
    expect(readdirSync(outputs)).toEqual([]);
    expect(env).not.toContain('POSIXLY_CORRECT');
    expect(env).not.toMatch(/^PATH=/m);
  });

  it('gives up (so the caller lists another way) when find fails for another reason than vanished files', async () => {
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'x.ts'), '');
    const fake = join(scratch, 'find');
    writeFileSync(fake, '#!/bin/sh\necho "find: ./a: Permission denied" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    expect(await newestThroughFind({ find: fake, root, excluded, limit: 5 })).toBeUndefined();
    expect(
      await newestThroughFind({ find: join(scratch, 'missing'), root, excluded, limit: 5 }),
    ).toBeUndefined();
    expect(await newest(5)).toEqual(['a/x.ts']);
  });
});
