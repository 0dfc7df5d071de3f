import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession, runAgent, type Session } from '../../src/agent/index.ts';
import type { AgentDone } from '../../src/agent/index.ts';
import type { ModelRequest } from '../../src/core/index.ts';
import { createScriptedProvider } from '../../src/providers/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

/**
 * Session lifecycle hooks in a real run: hook scripts in bash, Python and Node, read from a settings
 * file, run as child processes with Claude Code's stdin and environment.
 */

let workspace: TempWorkspace | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

const scripts = {
  // bash: `[[ … ]]` must work; stdout becomes context; exports go through CLAUDE_ENV_FILE.
  'start.sh': `#!/usr/bin/env bash
input=$(cat)
echo "SessionStart $(echo "$input" | grep -o '"source":"[a-z]*"') $FROM_SETTINGS" >> "$CLAUDE_PROJECT_DIR/events.log"
if [[ "$input" == *'"source":"startup"'* ]]; then echo "Project facts from SessionStart."; fi
echo 'export FROM_START="started by hook"' >> "$CLAUDE_ENV_FILE"
`,
  // Python: blocks one prompt, adds context to the others.
  'prompt.py': `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "events.log"), "a") as log:
    log.write("UserPromptSubmit " + data["prompt"] + "\\n")
if "forbidden" in data["prompt"]:
    print(json.dumps({"decision": "block", "reason": "this prompt is not allowed"}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Ticket ABC-1 is open."}}))
`,
  // Node: sends the agent back once, then lets it stop (stop_hook_active).
  'stop.mjs': `#!/usr/bin/env node
import { appendFileSync } from 'node:fs';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
appendFileSync(process.env.EFFERENT_PROJECT_DIR + '/events.log', input.hook_event_name + ' active=' + input.stop_hook_active + '\\n');
if (!input.stop_hook_active) console.log(JSON.stringify({ decision: 'block', reason: 'Run the tests before stopping.' }));
`,
  'notify.py': `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "events.log"), "a") as log:
    log.write("Notification " + data["notification_type"] + ": " + data["message"] + "\\n")
`,
  'end.sh': `#!/usr/bin/env bash
input=$(cat)
[[ "$input" == *'"hook_event_name":"SessionEnd"'* ]] && echo "SessionEnd" >> "$CLAUDE_PROJECT_DIR/events.log"
`,
};

const command = (path: string) => [{ hooks: [{ type: 'command', command: path }] }];

describe('lifecycle hooks in a real run', () => {
  it('fires SessionStart, UserPromptSubmit, Notification, Stop and SessionEnd with their contracts', async () => {
    workspace = await createTempWorkspace();
    const paths: Record<string, string> = {};
    for (const [name, body] of Object.entries(scripts)) {
      paths[name] = await workspace.write(`hooks/${name}`, body);
      await chmod(paths[name], 0o755);
    }
    await workspace.write(
      '.efferent/settings.json',
      JSON.stringify({
        env: { FROM_SETTINGS: 'settings-env' },
        hooks: {
          SessionStart: command(paths['start.sh'] as string),
          UserPromptSubmit: command(paths['prompt.py'] as string),
          Stop: command(paths['stop.mjs'] as string),
          Notification: command(paths['notify.py'] as string),
          SessionEnd: command(paths['end.sh'] as string),
        },
      }),
    );
    session = await createSession({
      cwd: workspace.dir,
      home: workspace.dir,
      trusted: true,
      sessionDir: workspace.path('.session'),
      askUser: async () => ({ choice: 'allow-once' }),
    });
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider(
      [
        {
          events: [
            {
              type: 'tool_use',
              id: 't1',
              name: 'Bash',
              input: { command: 'echo "env: $FROM_START" | tee out.txt' },
            },
          ],
        },
        { events: [{ type: 'text_delta', text: 'first stop' }] },
        { events: [{ type: 'text_delta', text: 'tests run, stopping' }] },
      ],
      { timeScale: 0, onRequest: (request) => requests.push(request) },
    );
    const current = session;
    const run = async (prompt: string, history: AgentDone['messages'] = []): Promise<AgentDone> => {
      for await (const event of runAgent({
        provider,
        tools: current.tools,
        runTool: current.runTool,
        context: current.context,
        systemPrompt: 'test',
        prompt,
        history,
        hooks: current.hooks,
      }))
        if (event.type === 'done') return event;
      throw new Error('the run ended without a done event');
    };
    const done = await run('fix the bug');
    expect(done.reason).toBe('end_turn');
    expect(done.finalText).toBe('tests run, stopping');
    const firstPrompt = JSON.stringify(requests[0]?.messages[0]);
    expect(firstPrompt).toContain('fix the bug');
    expect(firstPrompt).toContain('Project facts from SessionStart.');
    expect(firstPrompt).toContain('Ticket ABC-1 is open.');
    // CLAUDE_ENV_FILE exports reach the session's tools.
    expect(JSON.stringify(requests[1]?.messages)).toContain('env: started by hook');
    // The Stop hook's reason went to the model as the next user message.
    expect(JSON.stringify(requests[2]?.messages.at(-1))).toContain('Run the tests before stopping.');

    // A blocked prompt never reaches the model.
    const blocked = await run('do the forbidden thing', done.messages);
    expect(blocked.reason).toBe('hook_stop');
    expect(blocked.hookStopReason).toMatch(/not allowed/);
    expect(provider.turnsPlayed).toBe(3);

    await current.dispose();
    session = undefined;
    const log = (await readFile(join(workspace.dir, 'events.log'), 'utf8')).trim().split('\n');
    expect(log).toEqual([
      'SessionStart "source":"startup" settings-env',
      'UserPromptSubmit fix the bug',
      'Notification permission_prompt: efferent needs your permission to use Bash',
      'Stop active=false',
      'Stop active=true',
      'UserPromptSubmit do the forbidden thing',
      'SessionEnd',
    ]);
  });
});

describe('tool hooks in a real run', () => {
  it('fires PreToolUse, PostToolUse, PostToolUseFailure and PermissionRequest from bash, Python and Node scripts', async () => {
    workspace = await createTempWorkspace({ files: { 'notes.txt': 'notes\n' } });
    const log = join(workspace.dir, 'events.log');
    const tool = {
      'pre.sh': `#!/usr/bin/env bash
input=$(cat)
[[ "$input" == *'"hook_event_name":"PreToolUse"'* ]] && echo "PreToolUse $(echo "$input" | grep -o '"tool_name":"[A-Za-z]*"')" >> "${log}"
exit 0
`,
      'post.py': `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open("${log}", "a") as out:
    out.write(data["hook_event_name"] + " " + data["tool_name"] + "\\n")
`,
      'failure.mjs': `#!/usr/bin/env node
import { appendFileSync } from 'node:fs';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
appendFileSync(${JSON.stringify(log)}, input.hook_event_name + ' ' + input.tool_name + ' ' + (typeof input.error) + '\\n');
`,
      'permission.py': `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open("${log}", "a") as out:
    out.write("PermissionRequest " + data["tool_name"] + "\\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}))
`,
    };
    const paths: Record<string, string> = {};
    for (const [name, body] of Object.entries(tool)) {
      paths[name] = await workspace.write(`hooks/${name}`, body);
      await chmod(paths[name], 0o755);
    }
    await workspace.write(
      '.efferent/settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: command(paths['pre.sh'] as string),
          PostToolUse: command(paths['post.py'] as string),
          PostToolUseFailure: command(paths['failure.mjs'] as string),
          PermissionRequest: command(paths['permission.py'] as string),
        },
      }),
    );
    session = await createSession({
      cwd: workspace.dir,
      home: workspace.dir,
      trusted: true,
      sessionDir: workspace.path('.session'),
    });
    const current = session;
    const provider = createScriptedProvider(
      [
        {
          events: [
            {
              type: 'tool_use',
              id: 'r1',
              name: 'Read',
              input: { file_path: join(workspace.dir, 'notes.txt') },
            },
          ],
        },
        {
          events: [
            {
              type: 'tool_use',
              id: 'r2',
              name: 'Read',
              input: { file_path: join(workspace.dir, 'missing.txt') },
            },
          ],
        },
        {
          events: [
            {
              type: 'tool_use',
              id: 'w1',
              name: 'Write',
              input: { file_path: join(workspace.dir, 'new.txt'), content: 'hi\n' },
            },
          ],
        },
        { events: [{ type: 'text_delta', text: 'done' }] },
      ],
      { timeScale: 0 },
    );
    for await (const event of runAgent({
      provider,
      tools: current.tools,
      runTool: current.runTool,
      context: current.context,
      systemPrompt: 'test',
      prompt: 'go',
      hooks: current.hooks,
    }))
      if (event.type === 'done') expect(event.reason).toBe('end_turn');
    // The PermissionRequest hook allowed the write nobody else could approve.
    expect(await readFile(join(workspace.dir, 'new.txt'), 'utf8')).toBe('hi\n');
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual([
      'PreToolUse "tool_name":"Read"',
      'PostToolUse Read',
      'PreToolUse "tool_name":"Read"',
      'PostToolUseFailure Read string',
      'PreToolUse "tool_name":"Write"',
      'PermissionRequest Write',
      'PostToolUse Write',
    ]);
  });
});
