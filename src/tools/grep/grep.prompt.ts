/** Grep's defaults and caps. */
export const grepLimits = {
  defaultHeadLimit: 250,
  maxColumns: 500,
  /** Even an unlimited search stops collecting here, to protect memory. */
  maxCollectedChars: 10 * 1024 * 1024,
} as const;

/** The description the model reads for Grep. */
export const grepPrompt = `A powerful search tool built on ripgrep.

Usage:
- Always use Grep for searching file contents; do not run grep or rg through Bash. Grep is tuned for correct permissions and output size.
- Full regular expressions in ripgrep syntax, for example "log.*Error" or "function\\s+\\w+". Literal braces must be escaped: use "interface\\{\\}" to find "interface{}" in Go code.
- Filter files with glob (for example "*.js" or "**/*.{ts,tsx}") or type (for example "js", "py", "rust"); type is faster for standard file types.
- output_mode: "files_with_matches" (the default) lists matching files, most recently modified first; "content" shows matching lines (with -n line numbers on by default, and -A, -B, -C or context for surrounding lines); "count" shows how many lines match per file.
- Patterns match within one line by default. For patterns that span lines (like "struct \\{[\\s\\S]*?field"), set multiline: true.
- Results are capped at ${grepLimits.defaultHeadLimit} lines or entries by default (head_limit); pass offset to page through more, or head_limit: 0 for no cap. When the cap is hit, the result says so.
- Hidden files are searched; .gitignore is respected; VCS directories (.git, .svn, .hg, .bzr, .jj, .sl) are skipped. Lines longer than ${grepLimits.maxColumns} characters are cut.
- For open-ended searches that need several rounds, consider delegating to an agent.`;
