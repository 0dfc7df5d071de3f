import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession, runAgent, type Session } from '../../src/agent/index.ts';
import { createSubagentContext, type ModelRequest, toolResultText } from '../../src/core/index.ts';
import { createScriptedProvider } from '../../src/providers/index.ts';
import { createTempWorkspace, type TempWorkspace } from '../../src/testing/index.ts';

/**
 * PermissionDenied (whoever denied: a rule, the person, a PreToolUse hook) and SubagentStart, fired
 * from hook scripts in bash, Python and Node read from a settings file.
 */

let workspace: TempWorkspace | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

const command = (path: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: path }] },
];

async function writeScripts(current: TempWorkspace, scripts: Record<string, string>) {
  const paths: Record<string, string> = {};
  for (const [name, body] of Object.entries(scripts)) {
    paths[name] = await current.write(`hooks/${name}`, body);
    await chmod(paths[name], 0o755);
  }
  return paths;
}

describe('PermissionDenied', () => {
  it('fires with Claude Code fields when a rule, the person or a PreToolUse hook denies a call', async () => {
    workspace = await createTempWorkspace({ files: { 'notes.txt': 'notes\n' } });
    const log = join(workspace.dir, 'denied.log');
    const paths = await writeScripts(workspace, {
      // bash: the rule denial of Bash.
      'denied.sh': `#!/usr/bin/env bash
input=$(cat)
[[ "$input" == *'"hook_event_name":"PermissionDenied"'* ]] && echo "bash $(echo "$input" | grep -o '"tool_use_id":"[a-z0-9]*"')" >> "${log}"
`,
      // Python: the person's denial of Write.
      'denied.py': `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open("${log}", "a") as out:
    out.write("python " + data["tool_name"] + " " + data["tool_input"]["file_path"].split("/")[-1] + " reason=" + str(bool(data["reason"])) + "\\n")
`,
      // Node: the hook denial of Glob; it lets the model retry.
      'denied.mjs': `#!/usr/bin/env node
import { appendFileSync } from 'node:fs';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
appendFileSync(${JSON.stringify(log)}, 'node ' + input.tool_name + ' ' + input.reason + '\\n');
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionDenied', retry: true } }));
`,
      'guard.sh': `#!/usr/bin/env bash
cat > /dev/null
echo 'globbing is switched off here' >&2
exit 2
`,
    });
    await workspace.write(
      '.efferent/settings.json',
      JSON.stringify({
        permissions: { deny: ['Bash(rm *)'] },
        hooks: {
          PreToolUse: command(paths['guard.sh'] as string, 'Glob'),
          PermissionDenied: [
            ...command(paths['denied.sh'] as string, 'Bash'),
            ...command(paths['denied.py'] as string, 'Write'),
            ...command(paths['denied.mjs'] as string, 'Glob'),
          ],
        },
      }),
    );
    session = await createSession({
      cwd: workspace.dir,
      home: workspace.dir,
      trusted: true,
      sessionDir: workspace.path('.session'),
      askUser: async () => ({ choice: 'deny' }),
    });
    const byRule = await session.callTool('Bash', { command: 'rm notes.txt' }, { id: 'toolu1' });
    expect(byRule.isError).toBe(true);
    const byPerson = await session.callTool('Write', {
      file_path: join(workspace.dir, 'new.txt'),
      content: 'x',
    });
    expect(byPerson.isError).toBe(true);
    const byHook = await session.callTool('Glob', { pattern: '*.txt' });
    expect(byHook.isError).toBe(true);
    expect(toolResultText(byHook)).toContain('globbing is switched off here');
    expect(toolResultText(byHook)).toContain('A PermissionDenied hook says you may retry this call.');
    expect(await readFile(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('notes\n');
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual([
      'bash "tool_use_id":"toolu1"',
      'python Write new.txt reason=True',
      'node Glob globbing is switched off here',
    ]);
  });
});

describe('SubagentStart', () => {
  it('fires when the loop runs a subagent context, matched on its type, and its context reaches the subagent', async () => {
    workspace = await createTempWorkspace();
    const log = join(workspace.dir, 'agents.log');
    const paths = await writeScripts(workspace, {
      'start.py': `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open("${log}", "a") as out:
    out.write(data["hook_event_name"] + " " + data["agent_type"] + " " + str(data["agent_id"].startswith("agent-")) + "\\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Review only the diff."}}))
`,
      'session.sh': `#!/usr/bin/env bash
cat > /dev/null
echo "SessionStart" >> "${log}"
`,
      'stop.mjs': `#!/usr/bin/env node
import { appendFileSync } from 'node:fs';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
appendFileSync(${JSON.stringify(log)}, input.hook_event_name + ' ' + input.agent_type + '\\n');
`,
    });
    await workspace.write(
      '.efferent/settings.json',
      JSON.stringify({
        hooks: {
          SubagentStart: [
            ...command(paths['start.py'] as string, 'reviewer'),
            ...command(paths['start.py'] as string, 'other-type'),
          ],
          SessionStart: command(paths['session.sh'] as string),
          SubagentStop: command(paths['stop.mjs'] as string),
        },
      }),
    );
    session = await createSession({
      cwd: workspace.dir,
      home: workspace.dir,
      trusted: true,
      sessionDir: workspace.path('.session'),
    });
    const requests: ModelRequest[] = [];
    const provider = createScriptedProvider([{ events: [{ type: 'text_delta', text: 'reviewed' }] }], {
      timeScale: 0,
      onRequest: (request) => requests.push(request),
    });
    const context = createSubagentContext(session.context, { agentType: 'reviewer' });
    for await (const event of runAgent({
      provider,
      tools: session.tools,
      runTool: session.runTool,
      context,
      systemPrompt: 'test',
      prompt: 'review the change',
      hooks: session.hooks,
    }))
      if (event.type === 'done') expect(event.reason).toBe('end_turn');
    expect(JSON.stringify(requests[0]?.messages[0])).toContain('Review only the diff.');
    // Only the hook matching the agent type ran; a subagent does not fire SessionStart.
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual([
      'SubagentStart reviewer True',
      'SubagentStop reviewer',
    ]);
  });
});
