import { strongestOpinion } from '../decision-table.ts';
import type { Verdict } from '../verdict.ts';
import type { IndexedCheckContext } from './check-context.ts';
import type { AnalyzedSubcommandLike } from './shell-contract.ts';
import { SubcommandFacts } from './subcommand-facts.ts';
import { subcommandDecisionTable } from './subcommand-steps.ts';

export {
  type IndexedCheckContext,
  indexCheckContext,
  type SubcommandCheckContext,
} from './check-context.ts';
export { suggestRule } from './subcommand-checks.ts';

/**
 * Decides one subcommand by the steps of {@link subcommandDecisionTable}, strongest first: deny
 * rules, path deny rules on what it reads and writes, ask rules, critical removals, write targets,
 * allow rules, acceptEdits file commands, the read-only default. Returns undefined when no step
 * allowed or objected (the caller asks).
 */
export function checkSubcommand(
  subcommand: AnalyzedSubcommandLike,
  context: IndexedCheckContext,
): Verdict | undefined {
  return strongestOpinion(subcommandDecisionTable, new SubcommandFacts(subcommand, context));
}
