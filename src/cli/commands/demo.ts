import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { type AgentEvent, runAgent } from '../../agent/index.ts';
import type { AskUser } from '../../core/index.ts';
import { createScriptedProvider, loadSessionFile } from '../../providers/index.ts';
import { createSession } from '../../agent/index.ts';
import { renderPermissionPrompt } from '../terminal/permission-prompt.ts';
import { createEventRenderer } from '../terminal/render-events.ts';
import { style } from '../terminal/style.ts';
import { defaultSystemPrompt } from '../terminal/system-prompt.ts';

/**
 * The shipped sample: `examples/demo` at the package root, found by walking up from this module, which
 * may be a source file, a compiled one, or the CLI bundle.
 */
function findDemoRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, 'examples', 'demo');
    if (existsSync(join(directory, 'package.json')) && existsSync(candidate)) return `${candidate}${sep}`;
    const parent = dirname(directory);
    if (parent === directory) return fileURLToPath(new URL('../../../examples/demo/', import.meta.url));
    directory = parent;
  }
}
const demoRoot = findDemoRoot();

/** For test runner output, the pass and fail counts; otherwise nothing (the line count is shown). */
function testTally(text: string): string | undefined {
  const pass = /^# pass (\d+)/m.exec(text)?.[1];
  const fail = /^# fail (\d+)/m.exec(text)?.[1];
  return pass === undefined || fail === undefined ? undefined : `tests: ${pass} passed, ${fail} failed`;
}

interface DemoFlags {
  keep?: boolean;
  speed: string;
}

/** Counts, per model turn, how many tools started before the model's message ended. */
function createEarlyStartCounter() {
  let streaming = false;
  let early = 0;
  let total = 0;
  return {
    see(event: AgentEvent) {
      if (event.type === 'turn_start') streaming = true;
      if (event.type === 'stream' && (event.event.type === 'message_end' || event.event.type === 'error')) {
        streaming = false;
      }
      if (event.type === 'tool_started') {
        total += 1;
        if (streaming) early += 1;
      }
    },
    summary: () => ({ early, total }),
  };
}

/** `efferent demo`: a scripted session that fixes a failing test in a temporary copy of a sample project. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Watch a scripted agent fix a failing test on efferent (no API key needed).')
    .option('--keep', 'keep the temporary project copy afterwards')
    .option('--speed <factor>', 'play the script faster (2) or slower (0.5)', '1')
    .action(async (flags: DemoFlags) => {
      const output = process.stdout;
      const speed = Number(flags.speed) > 0 ? Number(flags.speed) : 1;
      const workspace = await mkdtemp(join(tmpdir(), 'efferent-demo-'));
      try {
        await cp(join(demoRoot, 'project'), workspace, { recursive: true });
        const turns = await loadSessionFile(join(demoRoot, 'session.jsonl'));
        const provider = createScriptedProvider(turns, { model: 'demo-script', timeScale: 1 / speed });
        const askUser: AskUser = async (prompt) => {
          output.write(renderPermissionPrompt(prompt));
          output.write(style.yellow('  (demo: answering "1) Allow once" automatically)\n'));
          return { choice: 'allow-once' };
        };
        // The temporary copy is its own home too, so the user's own settings cannot change the demo.
        const session = await createSession({
          cwd: workspace,
          model: provider.model,
          askUser,
          home: workspace,
        });
        output.write(
          [
            style.bold('efferent demo'),
            'A scripted model (no API key, no network) fixes a failing test in a sample project.',
            `Project copy: ${workspace}`,
            'Tool lines show milliseconds since the start, so you can see tools start while the model is still talking.',
            '',
          ].join('\n'),
        );
        const render = createEventRenderer(output, { timestamps: true, resultDetail: testTally });
        const counter = createEarlyStartCounter();
        for await (const event of runAgent({
          provider,
          tools: session.tools,
          runTool: session.runTool,
          resultBudget: session.resultBudget,
          context: session.context,
          systemPrompt: defaultSystemPrompt({ cwd: workspace }),
          prompt: 'The tests fail. Find the bug and fix it.',
          maxTurns: turns.length + 1,
        })) {
          counter.see(event);
          if (event.type === 'turn_start') {
            const note = turns[event.turn - 1]?.note;
            output.write(`\n${style.bold(`— Turn ${event.turn}`)}${note ? `: ${note}` : ''}\n`);
          }
          render(event);
          if (event.type === 'done') {
            const { early, total } = counter.summary();
            output.write(
              `\n${style.bold('Summary')}: ${event.reason}, ${event.turns} turns in ${event.durationMs} ms; ` +
                `${early} of ${total} tool calls started before the model finished its message.\n`,
            );
            if (event.reason !== 'end_turn') process.exitCode = 1;
          }
        }
        await session.dispose();
      } finally {
        if (flags.keep) output.write(`Kept the project copy at ${workspace}\n`);
        else await rm(workspace, { recursive: true, force: true });
      }
    });
}
