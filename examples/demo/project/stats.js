/** Adds up a list of numbers. */
export function sum(values) {
  let total = 0;
  for (let index = 1; index < values.length; index += 1) total += values[index];
  return total;
}

/** The arithmetic mean; 0 for an empty list. */
export function mean(values) {
  return values.length === 0 ? 0 : sum(values) / values.length;
}
