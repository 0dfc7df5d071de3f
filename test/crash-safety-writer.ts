/**
 * Test fixture for the crash-safety test: content versions and a child entry point that keeps
 * rewriting one large file with the real Write and Edit tools until it is killed.
 */
import { readFile, stat } from 'node:fs/promises';
import { createToolUseContext } from '../src/core/index.ts';
import { EditTool } from '../src/tools/edit/edit.ts';
import { WriteTool } from '../src/tools/write/write.ts';
import { recordFullView } from '../src/tools/shared/read-state.ts';

const bodyLines = 120_000; // about 4 MB

/**
 * The only contents the file may ever hold: `version N` then a body that changes every second version,
 * so an Edit (even N → odd) touches only the first line and a Write (odd → even) replaces everything.
 */
export function expectedContent(version: number): string {
  const seed = Math.floor(version / 2);
  const lines = [`version ${version}`];
  for (let line = 0; line < bodyLines; line++)
    lines.push(`${seed}:${line}:${(seed * 7919 + line * 104_729) % 1_000_003}`);
  return `${lines.join('\n')}\n`;
}

/** The version a content claims, or undefined when the first line is not a version line. */
export function claimedVersion(content: string): number | undefined {
  const match = /^version (\d+)\n/.exec(content);
  return match ? Number(match[1]) : undefined;
}

async function runChild(path: string): Promise<void> {
  const context = createToolUseContext({ cwd: process.cwd() });
  const content = await readFile(path, 'utf8');
  let version = claimedVersion(content) ?? 0;
  recordFullView(context, path, content, (await stat(path)).mtimeMs);
  process.stdout.write('ready\n');
  const allow = async () => ({ behavior: 'allow' as const, trace: [] });
  for (;;) {
    if (version % 2 === 0) {
      await EditTool.call(
        { file_path: path, old_string: `version ${version}\n`, new_string: `version ${version + 1}\n` },
        context,
        allow,
        () => {},
        'crash',
      );
    } else {
      await WriteTool.call(
        { file_path: path, content: expectedContent(version + 1) },
        context,
        allow,
        () => {},
        'crash',
      );
    }
    version++;
  }
}

const target = process.env['EFFERENT_CRASH_CHILD_FILE'];
if (target) {
  runChild(target).catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
