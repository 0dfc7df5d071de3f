/** The description the model reads for MultiEdit. */
export const multiEditPrompt = `Makes several exact string replacements in one file in a single, all-or-nothing operation.

Usage:
- Read the file first; the same rules as Edit apply to every edit (exact match, unique unless replace_all, old_string different from new_string).
- Edits are applied in the order given, each to the result of the previous ones, so plan them so that an earlier edit does not change text a later edit needs to find.
- If any edit fails, none is applied and the error names the failing edit; fix it and send the whole list again.
- To create a file, give an empty old_string in the first edit; its new_string becomes the file's content.
- Prefer this tool over several Edit calls when changing one file in several places.`;
