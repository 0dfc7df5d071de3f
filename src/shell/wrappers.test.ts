import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadShellParser,
  parseForSecurity,
  type SimpleCommand,
  unwrapCommand,
  unwrapCommandDetailed,
} from './index.ts';

beforeAll(async () => {
  await loadShellParser();
});

function parsed(command: string): SimpleCommand {
  const result = parseForSecurity(command);
  if (result.kind !== 'simple') throw new Error(`expected simple: ${command}`);
  const last = result.commands.at(-1);
  if (!last) throw new Error('no command');
  return last;
}

describe('unwrapCommand', () => {
  it.each([
    ['timeout 5 rm -rf dist', ['rm', '-rf', 'dist']],
    ['timeout -k 2 -s KILL 10s git status', ['git', 'status']],
    ['timeout --signal=TERM --preserve-status 1.5m ls', ['ls']],
    ['time -p ls', ['ls']],
    ['nice -n 10 curl x', ['curl', 'x']],
    ['nice -5 make', ['make']],
    ['nice --adjustment=3 make', ['make']],
    ['nohup ls -l', ['ls', '-l']],
    ['stdbuf -oL -e0 grep x', ['grep', 'x']],
    ['stdbuf --output=L grep x', ['grep', 'x']],
    ['env A=1 B=2 node app.js', ['node', 'app.js']],
    ['env -i -u HOME -- ls', ['ls']],
    ['command -p ls', ['ls']],
    ['builtin cd /tmp', ['cd', '/tmp']],
    ['exec -a name ls', ['ls']],
    ['noglob rm *', ['rm', '*']],
    ['setsid -f sleep 1', ['sleep', '1']],
    ['ionice -c 3 -n 7 du -sh', ['du', '-sh']],
    ['sudo -u root -E rm x', ['rm', 'x']],
    ['sudo --user=root -- rm x', ['rm', 'x']],
    ['sudo FOO=1 apt install x', ['apt', 'install', 'x']],
    ['doas -u root rm x', ['rm', 'x']],
    ['xargs rm -rf', ['rm', '-rf']],
    ['xargs -0 -n 1 -P 4 grep foo', ['grep', 'foo']],
    ['xargs -I {} cp {} /tmp', ['cp', '{}', '/tmp']],
    ['xargs', ['echo']],
    ['nohup FOO=bar timeout 5 claude', ['claude']],
    ['timeout 5 nice -n 2 env X=1 nohup git status', ['git', 'status']],
  ])('%j → %j', (command, expected) => {
    expect(unwrapCommand(parsed(command)).argv).toEqual(expected);
  });

  it.each([
    'command -v ls',
    'command -V ls',
    'sudo -l',
    'sudo -e /etc/hosts',
    'timeout abc rm x',
    'nice',
    'env',
    'env -S "rm -rf /"',
    'ionice -p 123',
    'watch rm x',
    'flock /tmp/l rm x',
    'npx rm x',
    'docker exec c rm x',
    'unknown-wrapper rm x',
  ])('leaves %j alone', (command) => {
    const original = parsed(command);
    expect(unwrapCommand(original).argv).toEqual(original.argv);
  });

  it('merges wrapper environment and reports wrappers, xargs and chdir', () => {
    const details = unwrapCommandDetailed(parsed('LANG=C env -C /tmp A=1 xargs -I% nice ls %'));
    expect(details.wrappers).toEqual(['env', 'xargs', 'nice']);
    expect(details.command.argv).toEqual(['ls', '%']);
    expect(details.command.envVars.map((variable) => variable.name)).toEqual(['LANG', 'A']);
    expect(details.xargs).toEqual({ replace: '%' });
    expect(details.chdir).toBe('/tmp');
    expect(details.command.text).toBe('ls %');
  });

  it.each([
    'timeout $T rm x',
    'timeout --weird 5 rm x',
    'xargs --frobnicate cat',
    'nice -Z 3 ls',
    'env --i ls',
  ])('makes %j too complex: an unknown or computed wrapper option hides what runs', (command) => {
    const result = parseForSecurity(command);
    expect(result.kind).toBe('too-complex');
  });
});
