import { writeContentAddressedFileBeneath } from '../core/content-addressed-file.ts';

/** The folder under a session directory where oversized results are kept. */
export const toolResultsFolder = 'tool-results';

/**
 * Writes `text` to `<sessionDir>/tool-results/<sha256 prefix>.txt` (stored once per content, renamed
 * into place so a reader never sees half a file) and returns the absolute path.
 */
export async function persistText(sessionDir: string, text: string): Promise<string> {
  // Never through a link: sandboxed commands must not be able to redirect this host-side write.
  return writeContentAddressedFileBeneath(sessionDir, toolResultsFolder, text);
}
