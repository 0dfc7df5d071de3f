import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyTool,
  createToolUseContext,
  type CreateContextInit,
  EfferentError,
  type ToolResultBlock,
  type ToolUseContext,
  toolResultText,
} from '../../core/index.ts';

/** A temp directory used as project root and cwd; remove it with `cleanup`. */
export interface TempProject {
  root: string;
  context: ToolUseContext;
  cleanup: () => Promise<void>;
}

/** Makes a temp project and a context rooted in it (for tool tests). */
export async function makeTempProject(init: Partial<CreateContextInit> = {}): Promise<TempProject> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'efferent-tools-')));
  const context = createToolUseContext({
    cwd: root,
    env: { PATH: process.env['PATH'], HOME: root },
    ...init,
  });
  return { root, context, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** How one tool call ended, as the model would see it. */
export type CallOutcome<Output> =
  | { ok: true; data: Output; block: ToolResultBlock; text: string }
  | { ok: false; stage: 'schema' | 'validate' | 'call'; message: string; code: string | number };

/**
 * Runs a tool the way the pipeline does for the parts a tool owns: schema parse, `validateInput`,
 * `call`, `mapResultToBlock`. Expected failures come back as `{ok:false}`; bugs still throw.
 */
export async function runTool<Output>(
  tool: AnyTool,
  rawInput: Record<string, unknown>,
  context: ToolUseContext,
): Promise<CallOutcome<Output>> {
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success)
    return { ok: false, stage: 'schema', message: parsed.error.message, code: 'input_invalid' };
  const input = parsed.data as Record<string, unknown>;
  const validation = await tool.validateInput(input, context);
  if (!validation.ok)
    return { ok: false, stage: 'validate', message: validation.message, code: validation.code };
  try {
    const result = await tool.call(
      input,
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      'toolu_test',
    );
    const block = tool.mapResultToBlock(result.data, 'toolu_test');
    return { ok: true, data: result.data as Output, block, text: toolResultText(block) };
  } catch (error) {
    if (EfferentError.isInstance(error))
      return { ok: false, stage: 'call', message: error.message, code: error.code };
    throw error;
  }
}

/**
 * An env that forces one ripgrep source. `system` puts a directory holding an `rg` link to the bundled
 * binary first on PATH, so the system lookup path runs for real even where no rg is installed.
 */
export async function ripgrepEnv(
  source: 'system' | 'bundled' | 'js',
  scratch: string,
): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = {
    PATH: process.env['PATH'],
    HOME: scratch,
    EFFERENT_RG: source,
  };
  // The distribution's ripgrep when the machine has one (CI installs Debian's, version 13, whose
  // sorting differs from newer ones); otherwise the bundled binary stands in for it on PATH.
  if (source === 'system' && existsSync('/usr/bin/rg')) {
    env['PATH'] = `/usr/bin:${process.env['PATH'] ?? ''}`;
  } else if (source === 'system') {
    const { mkdir, symlink } = await import('node:fs/promises');
    const { rgPath } = await import('@vscode/ripgrep');
    const bin = join(scratch, '.bin');
    await mkdir(bin, { recursive: true });
    await symlink(rgPath, join(bin, 'rg')).catch(() => {});
    env['PATH'] = `${bin}:${process.env['PATH'] ?? ''}`;
  }
  return env;
}
