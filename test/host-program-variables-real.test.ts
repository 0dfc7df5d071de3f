import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideHookPayload } from '../src/cli/commands/guard.ts';
import { parseHookPayload } from '../src/cli/guard/host-calls.ts';
import { isProgramCodeAssignment } from '../src/cli/guard/program-variables.ts';

/**
 * A host hands the variables a project's configuration sets to its shell (`host-shell-variables`).
 * Some are read by one program only and make it run code the value names: `GIT_CONFIG_COUNT` with
 * `core.fsmonitor` runs a script on `git status`, `NODE_OPTIONS=--require ./x.js` on `node --version`,
 * `RIPGREP_CONFIG_PATH` with `--pre` on `rg TODO`. A command that runs such a program is asked about;
 * one that does not (`ls src`) stays allowed.
 */

let base: string;
let home: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-host-program-')));
  home = join(base, 'home');
  mkdirSync(home);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A variable, a value that runs project code, and commands that run a program reading it. */
const hostile: Array<[string, string, string[]]> = [
  ['GIT_CONFIG_COUNT', '1', ['git status', 'git log --oneline', 'git diff --stat']],
  ['GIT_CONFIG_KEY_0', 'core.fsmonitor', ['git status']],
  ['GIT_CONFIG_PARAMETERS', "'core.fsmonitor'='./x.sh'", ['git status']],
  ['GIT_CONFIG_GLOBAL', './evil.gitconfig', ['git status', 'git branch -d old', 'git help log']],
  ['GIT_DIR', './other.git', ['git status']],
  ['GIT_EXTERNAL_DIFF', './x.sh', ['git diff', 'git show HEAD']],
  ['GIT_PAGER', './x.sh', ['git log']],
  ['GIT_SSH_COMMAND', 'sh ./x.sh', ['git fetch origin', 'git pull']],
  ['GIT_EDITOR', './x.sh', ['git commit']],
  ['XDG_CONFIG_HOME', './cfg', ['git status']],
  ['HOME', './home', ['git status']],
  ['NODE_OPTIONS', '--require ./x.js', ['node --version', 'npm test', 'npx tsc --version', 'npm run build']],
  ['NODE_OPTIONS', '--import=./x.mjs --max-old-space-size=4096', ['node -v']],
  ['npm_config_script_shell', './x.sh', ['npm test']],
  ['NPM_CONFIG_USERCONFIG', './npmrc', ['npm ci']],
  ['PYTHONPATH', '.', ['python3 -c "import json"', 'pytest']],
  ['PYTHONSTARTUP', './x.py', ['python3']],
  ['PERL5OPT', '-Mx', ['perl -e 1']],
  ['PERL5LIB', '.', ['perl -e 1']],
  ['RUBYOPT', '-r./x', ['ruby -v', 'bundle exec rake']],
  ['RUSTC_WRAPPER', './x.sh', ['cargo build']],
  ['CARGO_BUILD_RUSTC_WRAPPER', './x.sh', ['cargo check']],
  ['MAKEFLAGS', 'SHELL=./x.sh', ['make']],
  ['MAKEFILES', './x.mk', ['make test']],
  ['GOFLAGS', '-toolexec=./x.sh', ['go build ./...']],
  ['RIPGREP_CONFIG_PATH', './rg.conf', ['rg TODO src', 'rg --files']],
  ['TAR_OPTIONS', '--to-command=./x.sh', ['tar -tf a.tar', 'tar xf a.tar']],
  ['LESSOPEN', '|./x.sh %s', ['less README.md', 'man ls']],
  ['PAGER', './x.sh', ['man ls', 'git log']],
  ['EDITOR', './x.sh', ['git commit']],
  ['AWS_CONFIG_FILE', './aws.cfg', ['aws s3 ls']],
  ['KUBECONFIG', './kube.yml', ['kubectl get pods']],
  ['OPENSSL_CONF', './openssl.cnf', ['node -e 1', 'curl https://example.com']],
  ['DOTNET_STARTUP_HOOKS', './x.dll', ['dotnet test']],
  ['GRADLE_USER_HOME', './g', ['./gradlew build', 'gradle test']],
  ['CDPATH', '/', ['cd tmp && ls', 'cd src && rm -rf build']],
];

/** Each project file a host turns into its environment, with the text that sets `name` to `value`. */
const files = (name: string, value: string): Array<[string, string]> => [
  ['.env', `${name}=${JSON.stringify(value)}\n`],
  ['.env', `\ufeff# local\nexport ${name}='${value}'\n`],
  ['.gemini/.env', `${name}=\n'${value}'\n`],
  ['sub/.env', `\f${name} = ${JSON.stringify(value)}\n`],
  ['.claude/settings.json', JSON.stringify({ env: { [name]: value } })],
  ['.claude/settings.local.json', `\ufeff${JSON.stringify({ env: { [name]: value } })}`],
  [
    '.codex/config.toml',
    `model = "o3"\n[shell_environment_policy]\nset = { ${name} = ${JSON.stringify(value)} }\n`,
  ],
];

/** How a command is spelled around the program: wrappers, a pipe, a sequence, `find -exec`. */
const spellings = (command: string): string[] => [
  command,
  `timeout 30 ${command}`,
  `echo start; ${command} | cat`,
  `true && env ${command}`,
];

function project(file: string, text: string): string {
  const root = mkdtempSync(join(base, 'repo-'));
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'sub'));
  mkdirSync(join(root, 'src'));
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

/** Commands that run none of these programs: they stay as they were. */
const bystanders = ['ls src', 'cat README.md', 'grep -rn TODO src', 'wc -l README.md', 'head -5 README.md'];

describe('variables a project sets for one program', () => {
  it('the threat is real: git runs a script a project variable names on `git status`', () => {
    const root = mkdtempSync(join(base, 'real-'));
    expect(spawnSync('git', ['init', '-q', root]).status).toBe(0);
    writeFileSync(join(root, 'x.sh'), `#!/bin/sh\ntouch "${join(root, 'ran')}"\n`, { mode: 0o755 });
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: './x.sh',
    };
    spawnSync('git', ['status'], { cwd: root, env });
    expect(existsSync(join(root, 'ran'))).toBe(true);
  });

  it('generated: a command that runs the reading program is a flagged ask naming the variable', {
    timeout: 900_000,
  }, async () => {
    const allowed: string[] = [];
    let count = 0;
    for (const [name, value, commands] of hostile)
      for (const [file, text] of files(name, value)) {
        const root = project(file, text);
        const cwd = join(root, 'sub');
        // One host and one spelling per command and file, all spellings over the files.
        for (const [index, command] of commands.entries()) {
          const spelled = spellings(command)[(count + index) % 4] as string;
          const payload = count % 2 === 0 ? gemini(cwd, spelled) : claude(cwd, spelled);
          const decision = await decideHookPayload(payload, { home });
          if (decision.verdict === 'deny') continue;
          if (decision.verdict !== 'ask' || !decision.flagged || !decision.reason.includes(name))
            allowed.push(
              `${name}=${value} in ${file}: ${spelled} → ${decision.verdict} (${decision.reason})`,
            );
          count++;
        }
      }
    expect(allowed).toEqual([]);
    expect(count).toBe(378);
  });

  it('generated: commands that run no reading program are decided as before', {
    timeout: 900_000,
  }, async () => {
    const changed: string[] = [];
    const plain = project('README.md', 'hello\n');
    writeFileSync(join(plain, 'src', 'a.ts'), '// TODO\n');
    const before = new Map<string, string>();
    for (const command of bystanders)
      before.set(command, (await decideHookPayload(gemini(plain, command), { home })).verdict);
    expect([...before.values()].every((verdict) => verdict === 'allow')).toBe(true);
    // HOME is read by the shell itself (a login shell's profile, zsh's .zshenv): every command asks.
    for (const [name, value] of hostile.filter(([name]) => name !== 'HOME')) {
      const root = project('.env', `${name}=${JSON.stringify(value)}\n`);
      writeFileSync(join(root, 'README.md'), 'hello\n');
      for (const command of bystanders) {
        const decision = await decideHookPayload(gemini(root, command), { home });
        if (decision.verdict !== before.get(command))
          changed.push(`${name}: ${command} → ${decision.verdict}`);
      }
    }
    expect(changed).toEqual([]);
  });

  it('ordinary .env files leave git, npm and node as they were', { timeout: 300_000 }, async () => {
    const ordinary = [
      'NODE_ENV=development\nOPENAI_API_KEY="sk-abc"\nGOOGLE_CLOUD_PROJECT=p\nGOOGLE_APPLICATION_CREDENTIALS=./key.json\n',
      'AWS_PROFILE=dev\nAWS_REGION=eu-west-1\nAWS_ACCESS_KEY_ID=AKIA\nGH_TOKEN=ghp_x\nHTTPS_PROXY=http://proxy:3128\n',
      'NODE_OPTIONS=--max-old-space-size=4096\nGIT_TERMINAL_PROMPT=0\nGIT_AUTHOR_NAME=Someone\nPAGER=less -R\nEDITOR=vim\n',
      'PATH=/usr/local/bin:/usr/bin:/bin\nDATABASE_URL=postgres://localhost/db\nPORT=3000\n',
    ];
    const plain = project('README.md', 'hello\n');
    for (const command of ['git status', 'git log --oneline', 'npm test', 'node --version', 'ls src']) {
      const expected = await decideHookPayload(claude(plain, command), { home });
      for (const text of ordinary) {
        const root = project('.env', text);
        const decision = await decideHookPayload(claude(root, command), { home });
        expect({ text, command, verdict: decision.verdict, flagged: decision.flagged }).toEqual({
          text,
          command,
          verdict: expected.verdict,
          flagged: expected.flagged,
        });
      }
    }
  });

  it('a deny stays a deny, and an assignment in the command itself replaces the host’s', async () => {
    const root = project('.env', 'GIT_EXTERNAL_DIFF=./x.sh\n');
    mkdirSync(join(root, '.claude'));
    writeFileSync(
      join(root, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(git diff *)'] } }),
    );
    expect((await decideHookPayload(claude(root, 'git diff HEAD'), { home })).verdict).toBe('deny');
    const own = await decideHookPayload(gemini(root, 'GIT_EXTERNAL_DIFF= git status'), { home });
    expect(own.reason).not.toContain('GIT_EXTERNAL_DIFF, which');
  });

  it('data variables are not code; option and program values are judged by their words', () => {
    for (const [name, value] of [
      ['OPENAI_API_KEY', 'sk-x'],
      ['ANTHROPIC_BASE_URL', 'https://x'],
      ['GOOGLE_GENAI_USE_VERTEXAI', 'true'],
      ['AWS_REGION', 'us-east-1'],
      ['GIT_AUTHOR_EMAIL', 'a@b'],
      ['GIT_TERMINAL_PROMPT', '0'],
      ['NODE_OPTIONS', '--max-old-space-size=8192 --enable-source-maps'],
      ['LESS', '-FRX'],
      ['PAGER', 'cat'],
      ['PAGER', 'less -R'],
      ['EDITOR', 'code --wait'],
      ['NODE_ENV', 'production'],
      ['PATH', '/usr/bin'],
    ] as const)
      expect(isProgramCodeAssignment(name, value), `${name}=${value}`).toBe(false);
    for (const [name, value] of [
      ['NODE_OPTIONS', '--require ./x.js'],
      ['NODE_OPTIONS', '-r ./x.js'],
      ['NODE_OPTIONS', '--max-old-space-size=1 --loader ./x.mjs'],
      ['PAGER', './x.sh'],
      ['PAGER', 'less +!sh'],
      ['EDITOR', 'vim -c "!sh"'],
      ['AWS_CONFIG_FILE', './aws'],
      ['GIT_CONFIG_COUNT', '1'],
      ['RUSTC_WRAPPER', 'x'],
      ['CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER', './x'],
      ['TAR_OPTIONS', '-v'],
      ['AWS_SHARED_CREDENTIALS_FILE', './creds'],
      ['AZURE_CONFIG_DIR', './az'],
      ['OPENSSL_CONF', './openssl.cnf'],
      ['DOTNET_STARTUP_HOOKS', './x.dll'],
      ['LUA_INIT', 'os.execute("sh x.sh")'],
      ['PHPRC', './php.ini'],
      ['RUSTUP_HOME', './rustup'],
      ['VIRTUAL_ENV', './.venv'],
      ['CLOUDSDK_PYTHON', './x'],
      ['LESS', '-R -k./keys'],
      ['LESS', '+!sh'],
    ] as const)
      expect(isProgramCodeAssignment(name, value), `${name}=${value}`).toBe(true);
  });

  it('generated: the host files are read as the host reads them (dotenv’s blanks, a mark, JSON with comments)', {
    timeout: 300_000,
  }, async () => {
    // Before, each of these hid BASH_ENV (or a git variable) from the guard while the host loaded it.
    const spelled: Array<[string, (name: string, value: string) => string]> = [
      ['.env', (name, value) => `\ufeff${name}=${value}\n`],
      ['.env', (name, value) => `\f${name}=${value}\n`],
      ['.env', (name, value) => `A=1\n\u00a0${name}=${value}\n`],
      ['.env', (name, value) => `\u3000export\v${name}\f=\t${value}\n`],
      ['.env', (name, value) => `${name}:\u2003${value}\n`],
      ['.env', (name, value) => `${name}=\n"${value}"\n`],
      ['.gemini/.env', (name, value) => `\ufeff\ufeff${name}='${value}'\r\n`],
      ['.claude/settings.json', (name, value) => `\ufeff${JSON.stringify({ env: { [name]: value } })}`],
      ['.claude/settings.json', (name, value) => `{"env": {"${name}": "${value}"}, // local\n}`],
      ['.claude/settings.local.json', (name, value) => `{"env": {"${name}": "${value}",}}`],
      [
        '.claude/settings.local.json',
        (name, value) => `{"env": {"${name.replace('_', '\\u005f')}": "${value}"`,
      ],
      ['.codex/config.toml', (name, value) => `[shell_environment_policy.set]\n"${name}" = '${value}'\n`],
      ['.codex/config.toml', (name, value) => `\ufeffshell_environment_policy.set.${name} = "${value}"\n`],
    ];
    const missed: string[] = [];
    for (const [name, value, command] of [
      ['BASH_ENV', './x.sh', 'ls'],
      ['GIT_CONFIG_GLOBAL', './evil.gitconfig', 'git status'],
      ['NODE_OPTIONS', '--require ./x.js', 'node --version'],
    ] as const)
      for (const [file, text] of spelled) {
        const root = project(file, text(name, value));
        const decision = await decideHookPayload(gemini(root, command), { home });
        if (decision.verdict !== 'ask' || !decision.flagged || !decision.reason.includes(name))
          missed.push(`${file} ${JSON.stringify(text(name, value))}: ${command} → ${decision.verdict}`);
      }
    expect(missed).toEqual([]);
  });

  it('generated: variables a shell call carries in its own fields count as the project’s do', {
    timeout: 300_000,
  }, async () => {
    const root = project('README.md', 'hello\n');
    const call = (tool: string, command: string, extra: Record<string, unknown>) =>
      parseHookPayload(
        JSON.stringify({
          session_id: 's',
          turn_id: 't',
          cwd: root,
          hook_event_name: 'PreToolUse',
          tool_name: tool,
          tool_input: { ...(tool === 'exec_command' ? { cmd: command } : { command }), ...extra },
        }),
      );
    const missed: string[] = [];
    let count = 0;
    for (const tool of ['local_shell', 'shell', 'exec_command', 'Bash'])
      for (const field of ['env', 'environment'])
        for (const [name, value, command] of [
          ['BASH_ENV', './x.sh', 'ls'],
          ['LD_PRELOAD', './x.so', 'ls src'],
          ['GIT_DIR', './other.git', 'git status'],
          ['NODE_OPTIONS', '--require ./x.js', 'node --version'],
          ['RIPGREP_CONFIG_PATH', './rg.conf', 'rg TODO src'],
        ] as const)
          for (const shape of [{ [name]: value }, [`${name}=${value}`]]) {
            const decision = await decideHookPayload(call(tool, command, { [field]: shape }), { home });
            if (decision.verdict !== 'ask' || !decision.reason.includes(name))
              missed.push(`${tool} ${field}=${JSON.stringify(shape)}: ${command} → ${decision.verdict}`);
            count++;
          }
    expect(missed).toEqual([]);
    expect(count).toBe(80);
    // A shell the analysis does not speak, or another account, is asked about; ordinary fields are not.
    for (const extra of [
      { shell: './evil' },
      { shell: '/usr/bin/python3' },
      { user: 'root' },
      { env: 'A=1' },
    ]) {
      const decision = await decideHookPayload(call('exec_command', 'ls', extra), { home });
      expect(decision.verdict, JSON.stringify(extra)).toBe('ask');
    }
    for (const extra of [
      {},
      { shell: '/bin/bash' },
      { shell: 'zsh' },
      { env: { NODE_ENV: 'test', OPENAI_API_KEY: 'sk' } },
      { env: {} },
      { workdir: root, timeout_ms: 1000 },
    ]) {
      const decision = await decideHookPayload(call('exec_command', 'ls src', extra), { home });
      expect(decision.verdict, JSON.stringify(extra)).toBe('allow');
    }
  });

  it('a host file the guard cannot read whole asks; one behind a link is read where it leads', {
    timeout: 300_000,
  }, async () => {
    const outside = mkdtempSync(join(base, 'outside-'));
    writeFileSync(join(outside, 'shared.env'), 'GIT_DIR=./other.git\n');
    const padding = `# ${'x'.repeat(1024)}\n`.repeat(1100);
    const cases: Array<[string, (root: string) => void, string]> = [
      [
        '.env over the bound',
        (root) => writeFileSync(join(root, '.env'), `${padding}BASH_ENV=./x.sh\n`),
        'ls',
      ],
      [
        'settings over the bound',
        (root) =>
          writeFileSync(
            join(root, '.claude', 'settings.json'),
            JSON.stringify({ note: 'x'.repeat(1_100_000), env: { BASH_ENV: './x.sh' } }),
          ),
        'ls',
      ],
      ['.env a FIFO', (root) => spawnSync('mkfifo', [join(root, '.env')]), 'ls'],
      [
        '.env a link out',
        (root) => symlinkSync(join(outside, 'shared.env'), join(root, '.env')),
        'git status',
      ],
      [
        '.gemini/.env a link out',
        (root) => symlinkSync(join(outside, 'shared.env'), join(root, '.gemini', '.env')),
        'git status',
      ],
    ];
    for (const [what, plant, command] of cases) {
      const root = project('.claude/x', '');
      mkdirSync(join(root, '.gemini'));
      plant(root);
      const decision = await decideHookPayload(gemini(root, command), { home });
      expect({ what, verdict: decision.verdict, flagged: decision.flagged }).toEqual({
        what,
        verdict: 'ask',
        flagged: true,
      });
    }
    // A folder where a host file would be is skipped by the hosts, and by the guard.
    const folder = project('.env/keep', '');
    expect((await decideHookPayload(gemini(folder, 'ls'), { home })).verdict).toBe('allow');
  });
});
