/**
 * Characters that act on a terminal instead of printing: C0 controls except newline and tab
 * (ESC starts cursor moves, erases, colours, OSC 52 clipboard writes, titles, links; CR returns to the
 * line start), DEL, C1 controls (CSI and OSC have one-byte forms), and the Unicode direction
 * controls that reorder what is shown (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069).
 */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text that came from the model, a tool, a file, a hook or an MCP server, made safe to print: every
 * character that would act on the terminal is shown as a visible escape (`\x1b`, `\u202e`). So no
 * input can move the cursor over what the user is asked to approve, erase or hide part of a command,
 * reorder it, set the clipboard or the title. efferent's own styling is applied after this.
 * `colours` keeps colour sequences, for output the user chose to colour (their status line command).
 */
export function terminalText(text: string, options: { colours?: boolean } = {}): string {
  if (options.colours) {
    // Colour sequences (SGR, `ESC [ … m`) are kept; everything else is escaped as usual.
    return text
      .split(/(\u001b\[[0-9;]*m)/)
      .map((part, index) => (index % 2 === 1 ? part : terminalText(part)))
      .join('');
  }
  return text.replace(acting, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
