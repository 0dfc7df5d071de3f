import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createToolUseContext } from '../core/index.ts';
import { createScriptedTool } from './scripted-tool.ts';
import { createTempWorkspace } from './temp-workspace.ts';

const allow = async () => ({ behavior: 'allow' as const, trace: [] });

describe('createTempWorkspace', () => {
  it('creates files and a real git repository, and removes everything on dispose', async () => {
    let dir = '';
    {
      await using workspace = await createTempWorkspace({
        files: { 'src/a.ts': 'export const a = 1;\n' },
        git: true,
      });
      dir = workspace.dir;
      expect(await workspace.read('src/a.ts')).toBe('export const a = 1;\n');
      expect(await workspace.git('log', '--oneline')).toContain('initial');
      await workspace.write('src/b.ts', 'b');
      expect(await workspace.git('status', '--porcelain')).toContain('src/b.ts');
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('createScriptedTool', () => {
  it('records calls, holds gated calls until opened, and emits progress', async () => {
    const scripted = createScriptedTool({ name: 'Probe', durationMs: 10, progress: ['half'] });
    const context = createToolUseContext({ cwd: '/tmp' });
    const progress: unknown[] = [];
    const pending = scripted.tool.call(
      { gate: 'g' },
      context,
      allow,
      (event) => progress.push(event.data),
      'p1',
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(scripted.calls[0]?.endedAt).toBeUndefined();
    scripted.open('g');
    expect((await pending).data).toBe('Probe done');
    expect(progress).toEqual(['half']);
    expect(scripted.calls[0]?.outcome).toBe('ok');
  });

  it('fails as scripted and stops on abort', async () => {
    const scripted = createScriptedTool({
      name: 'Flaky',
      failWith: (input) => (input['bad'] ? 'scripted failure' : undefined),
    });
    const context = createToolUseContext({ cwd: '/tmp' });
    await expect(scripted.tool.call({ bad: true }, context, allow, () => {}, 'f1')).rejects.toThrow(
      'scripted failure',
    );
    const slow = createScriptedTool({ name: 'Slow', durationMs: 10_000 });
    setTimeout(() => context.run.abortController.abort(), 20);
    await expect(slow.tool.call({}, context, allow, () => {}, 's1')).rejects.toThrow(/aborted/);
    expect(slow.calls[0]?.outcome).toBe('aborted');
  });
});

describe('turn()', () => {
  it('builds scripted turns the scripted provider plays, with tool_use as the stop reason when a tool is called', async () => {
    const { createScriptedProvider, turn } = await import('./index.ts');
    const first = turn().text('Reading.').tool('Read', { file_path: 'a.txt' }, { id: 'r1' });
    const second = turn().text('Done.');
    expect(first.stopReason).toBe('tool_use');
    expect(second.stopReason).toBe('end_turn');
    expect(turn().text('cut').stop('max_tokens').stopReason).toBe('max_tokens');
    const provider = createScriptedProvider([first, second], { timeScale: 0 });
    const request = { systemPrompt: '', messages: [], tools: [], signal: new AbortController().signal };
    const events = [];
    for await (const event of provider.stream(request)) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'message_start',
      'text_delta',
      'tool_use_start',
      'tool_input_delta',
      'tool_use_end',
      'message_end',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'message_end', stopReason: 'tool_use' });
    expect(events.find((event) => event.type === 'tool_use_end')).toMatchObject({
      id: 'r1',
      name: 'Read',
      input: { file_path: 'a.txt' },
    });
    const ids = [turn().tool('Read', {}), turn().tool('Read', {})].map((built) =>
      JSON.stringify(built.events),
    );
    expect(ids[0]).not.toBe(ids[1]);
  });
});
