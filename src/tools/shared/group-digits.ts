/**
 * A whole number with commas between groups of three digits, as `toLocaleString('en-US')` writes it
 * (`25000` → `25,000`). Prompt texts built when efferent is imported use this: the first
 * `toLocaleString` call of a process loads the locale data, several milliseconds of every import.
 */
export function groupDigits(value: number): string {
  const [sign, digits] = value < 0 ? ['-', String(-value)] : ['', String(value)];
  return sign + digits.replace(/\B(?=(\d{3})+$)/g, ',');
}
