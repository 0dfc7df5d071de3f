/** Terminal styling that turns itself off when output is not a terminal or NO_COLOR is set. */
const enabled = process.stdout.isTTY === true && !process.env['NO_COLOR'];

const wrap = (open: number, close: number) => (text: string) =>
  enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** A few ANSI styles. */
export const style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};
