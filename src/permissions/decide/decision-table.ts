/**
 * Decisions that compose. A step is a small pure check with an opinion (allow, ask or deny, with its
 * reason and trace) or none (`undefined`). A table lists the steps strongest first: the table is the
 * scale. The decision is the strongest opinion, which is the first one met, so steps below it never
 * run (they may cost I/O, and their answer could not win). To change precedence, move a row; to add
 * a check, write a step and insert its row where its opinion should rank.
 */
export interface DecisionStep<Facts, Opinion> {
  /** What the step checks, in a few words (for the decision record, tests and debugging). */
  readonly name: string;
  readonly check: (facts: Facts) => Opinion | undefined;
}

/** Steps strongest first. */
export type DecisionTable<Facts, Opinion> = readonly DecisionStep<Facts, Opinion>[];

/** The strongest opinion in the table, or undefined when no step has one. */
export function strongestOpinion<Facts, Opinion>(
  table: DecisionTable<Facts, Opinion>,
  facts: Facts,
): Opinion | undefined {
  for (const step of table) {
    const opinion = step.check(facts);
    if (opinion !== undefined) return opinion;
  }
  return undefined;
}
