import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobTool } from '../glob/glob.ts';
import { makeTempProject, ripgrepEnv, runTool, type TempProject } from '../shared/test-support.ts';
import { type GrepOutput, GrepTool } from './grep.ts';

let project: TempProject;
let scratch: TempProject;
beforeEach(async () => {
  project = await makeTempProject();
  scratch = await makeTempProject();
});
afterEach(async () => {
  await project.cleanup();
  await scratch.cleanup();
});

describe.each(['system', 'bundled'] as const)(
  'Grep and Glob with %s ripgrep take no flags from outside',
  (source) => {
    beforeEach(async () => {
      project.context.run.env = await ripgrepEnv(source, scratch.root);
    });

    it('ignore a ripgrep config file named by RIPGREP_CONFIG_PATH (it could add --pre)', async () => {
      const marker = join(scratch.root, 'pre-ran');
      const preprocessor = join(project.root, 'pre.sh');
      await writeFile(preprocessor, `#!/bin/sh\ntouch ${marker}\ncat "$1"\n`);
      await chmod(preprocessor, 0o755);
      await writeFile(join(project.root, '.ripgreprc'), `--pre=${preprocessor}\n--files-without-match\n`);
      await writeFile(join(project.root, 'a.txt'), 'needle\n');
      project.context.run.env = {
        ...project.context.run.env,
        RIPGREP_CONFIG_PATH: join(project.root, '.ripgreprc'),
      };
      const outcome = await runTool<GrepOutput>(
        GrepTool,
        { pattern: 'needle', output_mode: 'content' },
        project.context,
      );
      expect(outcome.ok && outcome.text).toContain('a.txt:1:needle');
      expect(existsSync(marker)).toBe(false);
      expect((await runTool(GlobTool, { pattern: '*.txt' }, project.context)).ok).toBe(true);
      expect(existsSync(marker)).toBe(false);
    });

    it('treat parameters that look like flags as values', async () => {
      await mkdir(join(project.root, '-dir'));
      await writeFile(join(project.root, '-dir', '--pre=sh'), '--pre=sh\n-e x\n');
      const pattern = await runTool<GrepOutput>(
        GrepTool,
        { pattern: '--pre=sh', path: '-dir', glob: '--pre=sh', output_mode: 'content' },
        project.context,
      );
      expect(pattern.ok && pattern.text).toContain('--pre=sh');
      const byType = await runTool<GrepOutput>(GrepTool, { pattern: 'x', type: '--pre=sh' }, project.context);
      expect(byType.ok).toBe(false);
      // The message names the real problem (the type), not the pattern.
      expect(byType.ok === false && byType.message).toMatch(/unrecognized file type[\s\S]*glob parameter/);
      expect(byType.ok === false && byType.message).not.toContain('regular expression');
      const glob = await runTool(
        GlobTool,
        { pattern: '--pre=sh', path: join(project.root, '-dir') },
        project.context,
      );
      expect(glob.ok && glob.text).toContain('--pre=sh');
    });
  },
);

describe('Grep never runs an rg planted in the workspace', () => {
  it('skips PATH entries that are relative or inside the working directories', async () => {
    const marker = join(scratch.root, 'fake-rg-ran');
    const bin = join(project.root, 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    const fake = `#!/bin/sh\ntouch ${marker}\necho "ripgrep 99.0.0"\n`;
    await writeFile(join(bin, 'rg'), fake);
    await chmod(join(bin, 'rg'), 0o755);
    await writeFile(join(project.root, 'a.txt'), 'needle\n');
    project.context.run.env = {
      PATH: `.:node_modules/.bin:${bin}:${process.env['PATH'] ?? ''}`,
      HOME: scratch.root,
    };
    await writeFile(join(project.root, 'rg'), fake);
    await chmod(join(project.root, 'rg'), 0o755);
    const outcome = await runTool<GrepOutput>(GrepTool, { pattern: 'needle' }, project.context);
    expect(outcome.ok && outcome.text).toContain('a.txt');
    expect((await runTool(GlobTool, { pattern: '*.txt' }, project.context)).ok).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});
