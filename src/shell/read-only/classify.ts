import { own } from '../own.ts';
import { classifyEnvVar, isHarmlessEnvAssignment } from '../env-vars.ts';
import type { ArgKind, EnvVar, Redirect } from '../types.ts';
import { customChecks } from './custom-commands.ts';
import { parseArgs } from './flags.ts';
import { simpleCommandSpecs } from './simple-commands.ts';

/** Output targets that never change a file. */
const harmlessOutputs = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2']);
const inputOperators = new Set(['<', '<<', '<<-', '<<<']);
const dupOperators = new Set(['>&', '<&', '>&-', '<&-']);

/** True when a redirect neither writes a file nor opens a network connection. */
export function isReadOnlyRedirect(redirect: Redirect): boolean {
  if (/^\/dev\/(?:tcp|udp)\//.test(redirect.target)) return false;
  if (inputOperators.has(redirect.operator)) return true;
  if (dupOperators.has(redirect.operator) && /^(?:\d{1,2}|-)$/.test(redirect.target)) return true;
  return harmlessOutputs.has(redirect.target);
}

/** Wrappers that change nothing about what the inner command can do. */
const readOnlyWrappers = new Set([
  'timeout',
  'time',
  'nice',
  'stdbuf',
  'command',
  'builtin',
  'env',
  'xargs',
  'noglob',
  'ionice',
]);

/** The parts of a command the read-only check needs. */
export interface ReadOnlyInput {
  argv: readonly string[];
  argKinds: readonly ArgKind[];
  envVars: readonly EnvVar[];
  redirects: readonly Redirect[];
  /** Wrappers removed around it. */
  wrappers?: readonly string[];
  /** Run by xargs, which appends arguments read from stdin. */
  viaXargs?: boolean;
}

/**
 * Whether one (already unwrapped) simple command can neither change files or shell state, run
 * another program, nor use the network. Decided from per-command option allowlists: an option not
 * listed makes the command not read-only.
 */
export function isReadOnlySimpleCommand(command: ReadOnlyInput): boolean {
  if (!command.redirects.every(isReadOnlyRedirect)) return false;
  if (
    !command.envVars.every(
      (variable) =>
        (classifyEnvVar(variable.name) === 'safe' ||
          isHarmlessEnvAssignment(variable.name, variable.value, command.argv[0])) &&
        variable.literal !== false,
    )
  ) {
    return false;
  }
  if (command.wrappers?.some((wrapper) => !readOnlyWrappers.has(wrapper))) return false;
  const [name, ...args] = command.argv;
  // A bare assignment changes shell state; a bare redirect (`< file`) only reads.
  if (name === undefined) return command.envVars.length === 0;
  if (name.includes('/') || (command.argKinds[0] ?? 'literal') !== 'literal') return false;
  const kinds = command.argKinds.slice(1);
  const custom = own(customChecks, name);
  if (custom) {
    if (command.viaXargs && !custom.anyArgSafe) return false;
    return custom.custom(args, kinds);
  }
  const spec = own(simpleCommandSpecs, name);
  if (!spec) return false;
  if (command.viaXargs && !spec.anyArgSafe) return false;
  const parsed = parseArgs(args, kinds, spec);
  if (!parsed) return false;
  if (spec.maxOperands !== undefined && parsed.operands.length > spec.maxOperands) return false;
  return spec.validate ? spec.validate(parsed, args) : true;
}
