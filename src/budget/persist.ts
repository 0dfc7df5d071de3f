import { join } from 'node:path';
import { writeContentAddressedFile } from '../core/content-addressed-file.ts';

/** The folder under a session directory where oversized results are kept. */
export const toolResultsFolder = 'tool-results';

/**
 * Writes `text` to `<sessionDir>/tool-results/<sha256 prefix>.txt` (stored once per content, renamed
 * into place so a reader never sees half a file) and returns the absolute path.
 */
export function persistText(sessionDir: string, text: string): Promise<string> {
  return writeContentAddressedFile(join(sessionDir, toolResultsFolder), text);
}
