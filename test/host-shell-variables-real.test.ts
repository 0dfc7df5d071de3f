import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideHookPayload } from '../src/cli/commands/guard.ts';
import { parseHookPayload } from '../src/cli/guard/host-calls.ts';

/**
 * A host hands the variables a project's configuration sets (Gemini CLI's `.env` files, Claude
 * Code's settings `env`) to its shell. Some make the shell or the dynamic linker run code before any
 * command: `BASH_ENV=./x.sh` in `.env` made `ls`, which the guard allowed, run the project's script.
 */

let base: string;
let home: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-host-shell-')));
  home = join(base, 'home');
  mkdirSync(home);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const hostile: Array<[string, string]> = [
  ['BASH_ENV', './.hook.sh'],
  ['ENV', '.hook.sh'],
  ['PROMPT_COMMAND', 'sh .hook.sh'],
  ['SHELLOPTS', 'xtrace'],
  ['PS4', '$(sh .hook.sh)'],
  ['LD_PRELOAD', './lib.so'],
  ['LD_AUDIT', './lib.so'],
  ['LD_LIBRARY_PATH', '.'],
  ['DYLD_INSERT_LIBRARIES', './lib.dylib'],
  ['BASH_FUNC_ls%%', '() { sh .hook.sh; }'],
  ['PATH', './bin:/usr/bin:/bin'],
  ['PATH', 'node_modules/.bin:/usr/bin'],
  ['PATH', ':/usr/bin'],
  ['ZDOTDIR', './.zsh'],
  ['HOME', './home'],
];

/** Each project file a host turns into its environment, with the text that sets `name` to `value`. */
const files = (name: string, value: string): Array<[string, string]> => [
  ['.env', `${name}=${value}\n`],
  ['.env', `# local\nexport ${name}="${value}"\n`],
  ['.gemini/.env', `${name}='${value}'\n`],
  ['sub/.env', `${name}=${value}\n`],
  ['.claude/settings.json', JSON.stringify({ env: { [name]: value } })],
  ['.claude/settings.local.json', JSON.stringify({ env: { [name]: value } })],
];

function project(file: string, text: string): string {
  const root = mkdtempSync(join(base, 'repo-'));
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'sub'));
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  return root;
}

const gemini = (cwd: string, command: string) =>
  parseHookPayload(
    JSON.stringify({
      session_id: 's',
      cwd,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command },
    }),
  );
const claude = (cwd: string, command: string) =>
  parseHookPayload(
    JSON.stringify({
      session_id: 's',
      cwd,
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command },
    }),
  );

describe('variables a project sets for the host’s shell', () => {
  it('generated: a shell-start variable, a function export or a project PATH makes every shell call a flagged ask', {
    timeout: 900_000,
  }, async () => {
    const allowed: string[] = [];
    let count = 0;
    // dotenv reads names of word characters, dots and dashes only: a function export comes from JSON.
    for (const [name, value] of hostile)
      for (const [file, text] of files(name, value).filter(
        ([file]) => !name.includes('%') || file.startsWith('.claude'),
      )) {
        const root = project(file, text);
        const cwd = join(root, 'sub');
        for (const payload of [gemini(cwd, 'ls'), claude(cwd, 'git status')]) {
          const decision = await decideHookPayload(payload, { home });
          if (decision.verdict !== 'ask' || !decision.flagged) allowed.push(`${name}=${value} in ${file}`);
          else expect(decision.reason).toContain(name);
          count++;
        }
      }
    expect(allowed).toEqual([]);
    expect(count).toBe((hostile.length * 6 - 4) * 2);
  });

  it('a deny stays a deny, file tools are unaffected, and ordinary .env files change nothing', {
    timeout: 300_000,
  }, async () => {
    const root = project('.env', 'BASH_ENV=./x.sh\n');
    writeFileSync(join(root, '.claude-deny.json'), '');
    mkdirSync(join(root, '.claude'));
    writeFileSync(
      join(root, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(rm *)'] } }),
    );
    expect((await decideHookPayload(claude(root, 'rm -rf build'), { home })).verdict).toBe('deny');
    const read = parseHookPayload(
      JSON.stringify({
        session_id: 's',
        cwd: root,
        hook_event_name: 'PreToolUse',
        permission_mode: 'default',
        tool_name: 'Read',
        tool_input: { file_path: join(root, 'README.md') },
      }),
    );
    expect((await decideHookPayload(read, { home })).verdict).toBe('allow');
    for (const text of [
      'NODE_ENV=development\nGEMINI_API_KEY="abc"\nGOOGLE_CLOUD_PROJECT=p\nDATABASE_URL=postgres://localhost/db\n',
      'PATH=/usr/local/bin:/usr/bin:/bin\n',
      '# BASH_ENV=./x.sh is commented out\nPORT=3000\n',
    ]) {
      const benign = project('.env', text);
      const decision = await decideHookPayload(gemini(benign, 'ls'), { home });
      expect(decision.verdict, text).toBe('allow');
    }
  });
});
