/** Turns argv back into one line of shell text, the form Bash permission rules are matched against. */

const plainWord = /^[A-Za-z0-9_@%+=:,./~^-]+$/;

/** Quotes one word only when bash would otherwise read it differently. */
export function quoteWord(word: string): string {
  if (word === '') return "''";
  if (plainWord.test(word)) return word;
  // Double quotes read best in rules (`git commit -m "fix bug"`); fall back when they would expand.
  if (!/["$`\\!]/.test(word)) return `"${word}"`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `argv` as a single normalised line: words separated by one space, quoted where needed. */
export function formatArgv(argv: readonly string[]): string {
  let line = '';
  for (let index = 0; index < argv.length; index++) {
    const word = quoteWord(argv[index] ?? '');
    line = index === 0 ? word : `${line} ${word}`;
  }
  return line;
}
