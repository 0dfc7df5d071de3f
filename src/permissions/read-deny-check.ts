import { isAbsolute, posix } from 'node:path';
import {
  type CanonicalPath,
  canonicalizePath,
  fsRealpath,
  isUnresolvable,
  type RealpathFn,
} from './paths/canonical-path.ts';
import { contentRules, findPathRule } from './decide/rule-match.ts';
import { createWorkspace, type Workspace } from './decide/workspace.ts';
import { fileToolFamilies } from './rules/rule-index.ts';
import type { RuleSet } from './rules/rule-types.ts';

/** What {@link createReadDenyCheck} needs: the merged rules and the home directory `~/` rules use. */
export interface ReadDenyCheckOptions {
  rules: RuleSet;
  home: string;
  /** How existing paths resolve; default the real filesystem. */
  realpath?: RealpathFn;
}

/** Whether the Read deny rules cover an absolute path, with `./x` rules anchored at `cwd`. */
export type ReadDenyCheck = (absolutePath: string, cwd: string) => boolean;

/**
 * The check search tools run on every result path: the same Read deny rules, anchoring and
 * link-or-target matching the permission engine applies to a Read of that path. Returns undefined
 * when no Read deny rule exists, so searches without one pay nothing.
 */
export function createReadDenyCheck(options: ReadDenyCheckOptions): ReadDenyCheck | undefined {
  // Deny rules written under any reading tool's name (`Grep(…)`, `Glob(…)`) are Read rules too.
  const rules = contentRules(options.rules.deny, fileToolFamilies.Read);
  if (rules.length === 0) return undefined;
  const realpath = options.realpath ?? fsRealpath;
  // Rules anchor at the cwd, which context modifiers may change; keep the workspace of the last one.
  let workspace: Workspace | undefined;
  const workspaceFor = (cwd: string): Workspace => {
    if (workspace?.cwd !== cwd)
      workspace = createWorkspace({
        cwd,
        projectRoot: cwd,
        home: options.home,
        additionalDirectories: [],
        realpath,
      });
    return workspace;
  };
  return (absolutePath, cwd) => {
    const current = workspaceFor(cwd);
    const path = canonicalSearchResult(absolutePath, current);
    // A path the engine cannot reason about would not be readable without a prompt: hide it.
    if (path === undefined) return true;
    return findPathRule(rules, path, 'deny', current) !== undefined;
  };
}

/**
 * Search results are existing, normalised paths, so one realpath call resolves the target; anything
 * else takes the engine's segment-by-segment route.
 */
function canonicalSearchResult(absolutePath: string, workspace: Workspace): CanonicalPath | undefined {
  const lexical = posix.normalize(absolutePath);
  if (isAbsolute(absolutePath) && lexical === absolutePath && !/[\\\0\u0001-\u001f\u007f]/.test(lexical)) {
    const physical = workspace.realpath(lexical);
    if (physical !== undefined) return { lexical, physical };
  }
  const canonical = canonicalizePath(absolutePath, workspace, workspace.realpath);
  return isUnresolvable(canonical) ? undefined : canonical;
}
