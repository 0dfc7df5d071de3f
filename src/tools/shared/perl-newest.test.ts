import { existsSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mtimeOf, NewestFirst } from './newest-first.ts';
import { newestThroughPerl, statHelperPerl } from './perl-newest.ts';

let root: string;
let scratch: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'efferent-perl-newest-'));
  scratch = await mkdtemp(join(tmpdir(), 'efferent-perl-list-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

const perl = statHelperPerl(process.env);
const cat = ['/usr/bin/cat', '/bin/cat'].find((path) => existsSync(path)) as string;

/** Names as bytes: ASCII, UTF-8 that sorts differently in UTF-16, newlines, and bytes that are not UTF-8. */
const names: Buffer[] = [
  ...Array.from({ length: 40 }, (_, index) => Buffer.from(`d${index % 3}/f${(index * 17) % 40}.ts`)),
  Buffer.from('d0/é.ts'),
  Buffer.from('d0/e\u0301.ts'),
  Buffer.from('d1/\u{1F600}.ts'),
  Buffer.from('d1/\uFF61.ts'),
  Buffer.from('d1/\uE000x.ts'),
  Buffer.from('d2/line\nbreak.ts'),
  Buffer.from('d2/two\n\nlines.ts'),
  Buffer.concat([Buffer.from('d2/bad'), Buffer.from([0xff, 0xfe]), Buffer.from('.ts')]),
  Buffer.concat([Buffer.from('d0/half'), Buffer.from([0xc3]), Buffer.from('.ts')]),
  Buffer.concat([Buffer.from('d1/surrogate'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('.ts')]),
];
/** Listed but never created, or links: to a file (followed) and to nothing. */
const extras = ['gone.ts', 'd1/gone.ts', 'link.ts', 'dangling.ts'];

async function makeFiles(): Promise<void> {
  for (const directory of ['d0', 'd1', 'd2']) await mkdir(join(root, directory));
  for (const name of names) writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name]), '');
  symlinkSync('d0/f0.ts', join(root, 'link.ts'));
  symlinkSync('nowhere.ts', join(root, 'dangling.ts'));
}

/** JavaScript's order over what Node's statSync says: newer first, ties by the decoded name. */
function expectedNewest(listed: Buffer[], limit: number): string[] {
  return listed
    .map((bytes) => {
      const path = bytes.toString('utf8');
      return { path, time: mtimeOf(`${root}/${path}`) };
    })
    .sort((a, b) =>
      a.time !== b.time ? (a.time > b.time ? -1 : 1) : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    )
    .slice(0, limit)
    .map(({ path }) => path);
}

describe('the perl stat helper', () => {
  it('is found on this machine (the stat threads are the fallback elsewhere)', () => {
    expect(perl, 'the system perl at /usr/bin/perl').toBeDefined();
    expect(statHelperPerl({ EFFERENT_STAT_PERL: '0' })).toBeUndefined();
  });

  it('gives the same newest paths as a global sort and as the stat threads, for any times, listings and limits', async () => {
    await makeFiles();
    const epoch = Date.UTC(2026, 0, 1) / 1000;
    const all = [...names, ...extras.map((name) => Buffer.from(name))];
    await fc.assert(
      fc.asyncProperty(
        // Few distinct seconds (many ties), and fractions that differ below a microsecond.
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(0, 0.25, 0.0000001, 0.0000003)), {
          minLength: names.length,
          maxLength: names.length,
        }),
        fc.shuffledSubarray(all, { minLength: 1 }),
        fc.integer({ min: 1, max: 30 }),
        async (ages, listed, limit) => {
          names.forEach((name, index) => {
            const [age, fraction] = ages[index] as [number, number];
            const time = epoch - age + fraction;
            utimesSync(Buffer.concat([Buffer.from(`${root}/`), name]), time, time);
          });
          const listing = Buffer.concat(
            listed.map((name, index) =>
              Buffer.concat([Buffer.from(index % 4 === 0 ? './' : ''), name, Buffer.from([0])]),
            ),
          );
          writeFileSync(join(scratch, 'list'), listing);
          const expected = expectedNewest(listed, limit);
          const found = await newestThroughPerl({
            perl: perl as string,
            command: [cat, join(scratch, 'list')],
            root,
            limit,
          });
          expect(found?.listed).toBe(listed.length);
          expect(found?.exitCode).toBe(0);
          const merged = new NewestFirst(root, limit);
          merged.merge(found?.stamped ?? { paths: [], times: new Float64Array() });
          expect(merged.ordered()).toEqual(expected);
          // What comes back is bounded by the limit, except for non-ASCII names tied at the cut and
          // names that are not UTF-8.
          const nonAscii = listed.filter((name) => name.some((byte) => byte > 0x7f)).length;
          expect(found?.stamped.paths.length).toBeLessThanOrEqual(limit + nonAscii);
          const threaded = new NewestFirst(root, limit);
          threaded.enqueueLines(listing, '\0');
          await threaded.settled();
          expect(threaded.ordered()).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('passes on the lister exit code and stderr, and gives up when the lister cannot start', async () => {
    const failing = await newestThroughPerl({
      perl: perl as string,
      command: ['/bin/sh', '-c', 'printf "a\\0"; echo oops >&2; exit 2'],
      root,
      limit: 5,
    });
    expect(failing).toMatchObject({ listed: 1, exitCode: 2, stderr: 'oops\n' });
    expect(failing?.stamped.paths).toEqual(['a']);
    expect(failing?.stamped.times[0]).toBe(Number.NEGATIVE_INFINITY);
    const missing = await newestThroughPerl({
      perl: perl as string,
      command: [join(root, 'no-such-lister')],
      root,
      limit: 5,
    });
    expect(missing).toBeUndefined();
  });

  it('does not load code from PERL5OPT or PERL5LIB in the environment it is given', async () => {
    writeFileSync(join(scratch, 'Evil.pm'), `package Evil; open(my $f, '>', '${scratch}/ran'); 1;\n`);
    writeFileSync(join(root, 'a.ts'), '');
    const found = await newestThroughPerl({
      perl: perl as string,
      command: ['/bin/sh', '-c', 'printf "a.ts\\0"'],
      root,
      limit: 5,
      env: { PATH: process.env['PATH'], PERL5OPT: '-MEvil', PERL5LIB: scratch },
    });
    expect(found?.stamped.paths).toEqual(['a.ts']);
    expect(existsSync(join(scratch, 'ran'))).toBe(false);
  });

  it('is kept between calls without keeping a process alive: a script that used it ends on its own', async () => {
    writeFileSync(join(root, 'old'), '');
    utimesSync(join(root, 'old'), 1_000, 1_000);
    writeFileSync(join(root, 'new'), '');
    const module = pathToFileURL(resolve(import.meta.dirname, 'perl-newest.ts')).href;
    const script = `import { newestThroughPerl } from ${JSON.stringify(module)};
const options = { perl: ${JSON.stringify(perl)}, command: ['/bin/sh', '-c', 'printf "old\\\\0new\\\\0"'], root: ${JSON.stringify(root)}, limit: 5 };
const first = await newestThroughPerl(options);
const second = await newestThroughPerl(options);
console.log(first.stamped.paths.join(','), second.stamped.paths.join(','), first.stamped.times[0] > first.stamped.times[1]);`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../../..'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.signal, 'the process had to be killed').toBeNull();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('new,old new,old true');
  });

  it('stops the lister when aborted', async () => {
    const controller = new AbortController();
    const pidFile = join(scratch, 'pid');
    const pending = newestThroughPerl({
      perl: perl as string,
      command: ['/bin/sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`],
      root,
      limit: 5,
      signal: controller.signal,
    });
    while (!existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // Gone, or a zombie waiting for whoever inherited it.
    const running = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let attempt = 0; attempt < 100 && running(); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running()).toBe(false);
  });
});
