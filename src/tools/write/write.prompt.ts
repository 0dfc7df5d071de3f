/** The description the model reads for Write. */
export const writePrompt = `Writes a file to the local filesystem, replacing it if it exists.

Usage:
- file_path should be absolute (relative paths are resolved against the working directory). Missing parent directories are created.
- To overwrite an existing file you must have read it with Read first; overwriting a file you have not read, or one that changed since you read it, is refused.
- The write is atomic: the file holds either its old content or the new content, never a mix.
- An existing file keeps its permissions, encoding, byte-order mark and CRLF line endings.
- Prefer Edit for changing parts of an existing file; use Write for new files or complete rewrites.
- Do not create documentation or README files unless asked, and do not add emojis unless asked.`;
