import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Which project folders the user has said they trust. A cloned repository's `.efferent/settings.json`
 * can allow commands and define hooks that run programs, so those only apply once the user has
 * trusted the folder — the same promise Claude Code's trust dialog makes. The list lives in the
 * user's home, never in the project, so a project cannot trust itself.
 */

/** Where the list is kept. */
export function trustStorePath(home: string): string {
  return join(home, '.efferent', 'trusted-workspaces.json');
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

async function readTrusted(home: string): Promise<string[]> {
  try {
    const parsed: unknown = JSON.parse(await readFile(trustStorePath(home), 'utf8'));
    const list = (parsed as { trusted?: unknown }).trusted;
    return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
}

/** True when the user trusted this folder (compared as canonical paths, exact folder only). */
export async function isWorkspaceTrusted(home: string, projectRoot: string): Promise<boolean> {
  const target = await canonical(projectRoot);
  return (await readTrusted(home)).includes(target);
}

/** Records that the user trusts this folder (written atomically). */
export async function trustWorkspace(home: string, projectRoot: string): Promise<void> {
  const target = await canonical(projectRoot);
  const trusted = await readTrusted(home);
  if (trusted.includes(target)) return;
  const path = trustStorePath(home);
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify({ trusted: [...trusted, target].sort() }, null, 2)}\n`, {
      mode: 0o600,
    });
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
