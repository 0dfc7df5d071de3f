/** The description the model reads for Edit. */
export const editPrompt = `Performs an exact string replacement in a file.

Usage:
- Read the file with Read at least once before editing it; editing a file you have not read, or one that changed since you read it, is refused.
- old_string must match the file exactly, including indentation and whitespace. When copying from Read output, leave out the line-number prefix (the number and the tab before the text).
- The edit fails when old_string is not found, or when it occurs more than once and replace_all is false. Make old_string unique by adding surrounding lines, or set replace_all to true to change every occurrence (useful for renaming a variable).
- old_string and new_string must differ.
- An empty old_string creates a new file with new_string as its content (only when the file does not exist or is empty).
- Line endings, byte-order marks and curly quotes in the file are kept: write old_string and new_string with plain \\n newlines and straight quotes if that is easier.
- Prefer editing existing files to creating new ones. Do not add emojis unless asked.`;
