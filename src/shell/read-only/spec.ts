import type { ParsedArgs, ParseRules } from './flags.ts';

/** A command that can be read-only: how to parse it and what else must hold. */
export interface CommandSpec extends ParseRules {
  /** Extra checks on the parsed arguments; false = not read-only. */
  validate?: (parsed: ParsedArgs, args: readonly string[]) => boolean;
  /** The most operands allowed (`uniq IN OUT` writes OUT). */
  maxOperands?: number;
}

/** A command whose read-only check needs more than a flag table (git, sed, find, …). */
export interface CustomCheck {
  custom: (args: readonly string[], kinds: readonly import('../types.ts').ArgKind[]) => boolean;
  /** See {@link ParseRules.anyArgSafe}; needed for commands run by xargs. */
  anyArgSafe?: boolean;
}
