import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { PermissionMode } from '../src/core/index.ts';
import {
  type CheckOptions,
  checkPermissionCase,
  loadDefaultShellAnalyzer,
} from '../src/permissions/index.ts';
import { getAllBaseTools } from '../src/registry/index.ts';

/** Rules for one decision; lists left out are empty. */
export interface PlaceRules {
  allow?: string[];
  deny?: string[];
  ask?: string[];
}

/**
 * A temporary project (`root/project`) and home (`root/home`) in which Bash calls are decided by the
 * real engine, with the real tools and shell analyser, as `efferent check` decides them.
 */
export interface DecisionPlace {
  readonly root: string;
  readonly project: string;
  readonly home: string;
  decide(command: string, rules: PlaceRules, mode: PermissionMode): ReturnType<typeof checkPermissionCase>;
  /** The decision for any tool's call (Read, Write, Grep…) made in the project. */
  decideTool(
    tool: string,
    input: Record<string, unknown>,
    rules: PlaceRules,
    mode: PermissionMode,
  ): ReturnType<typeof checkPermissionCase>;
  /** What real bash prints (stdout, then stderr) running `command` in the project with this home. */
  bash(command: string): string;
}

/**
 * Makes a {@link DecisionPlace} before a test file's tests (`prepare` then lays out what the file
 * needs in it) and removes it after them. Its paths are set once the file's tests run.
 */
export function decisionPlace(prefix: string, prepare?: (place: DecisionPlace) => void): DecisionPlace {
  let options: CheckOptions | undefined;
  const place = {
    root: '',
    project: '',
    home: '',
    decide(command: string, rules: PlaceRules, mode: PermissionMode) {
      return place.decideTool('Bash', { command }, rules, mode);
    },
    decideTool(tool: string, input: Record<string, unknown>, rules: PlaceRules, mode: PermissionMode) {
      if (options === undefined) throw new Error('decide() runs in a test, once the place is made');
      return checkPermissionCase(
        {
          tool,
          input,
          cwd: place.project,
          home: place.home,
          mode,
          rules: { allow: rules.allow ?? [], deny: rules.deny ?? [], ask: rules.ask ?? [] },
        },
        options,
      );
    },
    bash(command: string): string {
      const result = spawnSync('bash', ['-c', command], {
        cwd: place.project,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: place.home, LANG: 'C' },
        timeout: 20_000,
      });
      return `${result.stdout}${result.stderr}`;
    },
  };
  beforeAll(async () => {
    place.root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    place.project = join(place.root, 'project');
    place.home = join(place.root, 'home');
    mkdirSync(place.project, { recursive: true });
    mkdirSync(place.home, { recursive: true });
    const shell = await loadDefaultShellAnalyzer();
    options = { tools: getAllBaseTools(), defaultHome: place.home, ...(shell ? { shell } : {}) };
    prepare?.(place);
  });
  afterAll(() => rmSync(place.root, { recursive: true, force: true }));
  return place;
}
