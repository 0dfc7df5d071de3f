import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';

/**
 * Real repositories that carry configuration naming a program, as a cloned (or unpacked) project
 * could. The program only appends a line to a marker file, so a test can tell whether git ran it.
 */

/** A temporary base directory: `home`, the marker program, and repositories beneath. */
export interface GitLab {
  base: string;
  home: string;
  /** The program the attack configurations name. */
  program: string;
  marker: string;
  /** Environment for running git directly, isolated from the user's own configuration. */
  env: NodeJS.ProcessEnv;
  ran(): boolean;
  reset(): void;
  git(cwd: string, ...args: string[]): string;
  cleanup(): void;
}

export function makeGitLab(): GitLab {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'efferent-gitcfg-')));
  const home = join(base, 'home');
  mkdirSync(home);
  const marker = join(base, 'MARKER');
  const program = join(base, 'evil.sh');
  writeFileSync(
    program,
    `#!/bin/sh\necho "ran $*" >> '${marker}'\nif [ -f "$1" ]; then cat "$1"; elif [ $# -eq 0 ]; then cat; fi\nexit 0\n`,
  );
  chmodSync(program, 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return {
    base,
    home,
    program,
    marker,
    env,
    ran: () => existsSync(marker),
    reset: () => rmSync(marker, { force: true }),
    git,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Runs git ignoring failures (an attack program may make the command fail). */
export function gitQuietly(lab: GitLab, cwd: string, args: string[]): void {
  try {
    execFileSync('git', args, { cwd, env: lab.env, stdio: 'ignore', timeout: 20_000 });
  } catch {
    // The command's exit status does not matter, only whether the program ran.
  }
}

/**
 * A plain repository with two commits, a signed-looking third one, a modified working file, an
 * ordinary `origin` remote and typical harmless settings. Returns its working tree.
 */
export function makePlainRepository(lab: GitLab, name: string): string {
  const root = join(lab.base, name);
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) => lab.git(root, ...args);
  git('init', '-q', '-b', 'main', '.');
  git('config', 'user.name', 'Test');
  git('config', 'user.email', 'test@example.com');
  writeFileSync(join(root, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'one');
  git('tag', 'v1');
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\n');
  git('commit', '-qam', 'two');
  const tree = git('rev-parse', 'HEAD^{tree}').trim();
  const head = git('rev-parse', 'HEAD').trim();
  const signed = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
    cwd: root,
    env: lab.env,
    encoding: 'utf8',
    input: `tree ${tree}\nparent ${head}\nauthor T <t@e> 1 +0000\ncommitter T <t@e> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n`,
  }).trim();
  git('update-ref', 'HEAD', signed);
  // A second repository to be `origin`, by path, so `git ls-remote origin` really runs a transport.
  const upstream = join(lab.base, `${name}-upstream.git`);
  if (!existsSync(upstream)) execFileSync('git', ['init', '-q', '--bare', upstream], { env: lab.env });
  git('remote', 'add', 'origin', upstream);
  git('config', 'branch.main.remote', 'origin');
  git('config', 'branch.main.merge', 'refs/heads/main');
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree\n');
  return root;
}

/** Appends text to a repository's `.git/config`. */
export function appendConfig(root: string, text: string, file = join(root, '.git', 'config')): void {
  appendFileSync(file, `\n${text}\n`);
}

/** Writes and commits `.gitattributes` with one line. */
export function commitAttributes(lab: GitLab, root: string, line: string): void {
  writeFileSync(join(root, '.gitattributes'), `${line}\n`);
  lab.git(root, 'add', '.gitattributes');
  lab.git(root, 'commit', '-qm', 'attributes');
}

/** Copies a repository's git directory into `target` as ordinary files: an embedded bare repository. */
export function embedBareRepository(lab: GitLab, from: string, target: string): void {
  mkdirSync(target, { recursive: true });
  execFileSync('cp', ['-r', `${join(from, '.git')}/.`, target], { env: lab.env });
  // A plain clone has no index there, only the files.
  rmSync(join(target, 'index'), { force: true });
}

export function readMarker(lab: GitLab): string {
  return existsSync(lab.marker) ? readFileSync(lab.marker, 'utf8') : '';
}
