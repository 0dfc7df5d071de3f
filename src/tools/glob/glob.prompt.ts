/** Glob's result cap. */
export const maxGlobResults = 100;

/** The description the model reads for Glob. */
export const globPrompt = `Fast file search by name pattern, for codebases of any size.

Usage:
- Takes a glob pattern such as "**/*.js" or "src/**/*.ts" and returns the matching file paths, most recently modified first.
- A pattern without a slash (for example "*.md") matches file names at any depth.
- path is the directory to search; omit it to search the current working directory. Do not pass "undefined" or "null".
- At most ${maxGlobResults} files are returned; when there are more, the result says it was truncated, so narrow the pattern or the path.
- Files ignored by .gitignore are listed too; VCS directories and node_modules are skipped unless the pattern or path points into node_modules.
- Use Grep to search file contents. For open-ended searches that need several rounds of globbing and grepping, consider delegating to an agent.
- Call several searches in parallel when they are independent.`;
