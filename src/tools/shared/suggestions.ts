import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

/** Edit distance between two short strings (file names), for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function stem(name: string): string {
  const extension = extname(name);
  return (extension ? name.slice(0, -extension.length) : name).toLowerCase();
}

/**
 * Up to `max` existing paths in the same directory whose names resemble the missing one: same name
 * in another case or with another extension, or a small typo. Missing directories yield nothing.
 */
export async function suggestSimilarPaths(missingPath: string, max = 3): Promise<string[]> {
  const directory = dirname(missingPath);
  const wanted = basename(missingPath);
  const entries = await readdir(directory).catch(() => [] as string[]);
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of entries) {
    if (name === wanted) continue;
    let score: number | undefined;
    if (name.toLowerCase() === wanted.toLowerCase()) score = 0;
    else if (stem(name) === stem(wanted)) score = 1;
    else {
      const distance = editDistance(name.toLowerCase(), wanted.toLowerCase());
      if (distance <= Math.max(2, Math.floor(wanted.length / 4))) score = 1 + distance;
    }
    if (score !== undefined) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((entry) => join(directory, entry.name));
}

/** A sentence to append to "file not found" errors, or '' when nothing resembles the name. */
export async function didYouMean(missingPath: string): Promise<string> {
  const similar = await suggestSimilarPaths(missingPath);
  if (similar.length === 0) return '';
  return similar.length === 1
    ? ` Did you mean ${similar[0]}?`
    : ` Did you mean one of: ${similar.join(', ')}?`;
}
