/**
 * The files a patch in the `apply_patch` envelope touches (`*** Begin Patch` … `*** End Patch`): each
 * `*** Add File: PATH`, `*** Update File: PATH`, `*** Delete File: PATH` and `*** Move to: PATH` line.
 * Every one is a write; the guard asks about each as its own Write or Edit.
 *
 * Hosts read the envelope leniently (Codex trims each header line and accepts a heredoc around the
 * patch), so a header is any line that is one once trimmed, in any case: reading more lines as
 * headers than the host does only adds writes to decide, never hides one.
 */

/** One file a patch writes, and how. */
export interface PatchTarget {
  path: string;
  /** `add` creates the file (a Write); the others change or remove an existing one (an Edit). */
  action: 'add' | 'update' | 'delete' | 'move';
  /** For `add`: the new file's text, from its `+` lines. */
  content?: string;
}

const headers: ReadonlyArray<[RegExp, PatchTarget['action']]> = [
  [/^\*\*\*\s*Add\s+File:(.*)$/i, 'add'],
  [/^\*\*\*\s*Update\s+File:(.*)$/i, 'update'],
  [/^\*\*\*\s*Delete\s+File:(.*)$/i, 'delete'],
  [/^\*\*\*\s*Move\s+to:(.*)$/i, 'move'],
];

/** True for a line a host reads as the start of a patch. */
const beginsPatch = (line: string): boolean => /^\*\*\*\s*Begin\s+Patch$/i.test(line.trim());

/** True when the text holds a patch envelope somewhere (on its own, in a heredoc, in an argv word). */
export function containsPatch(text: string): boolean {
  return text.split(/\r?\n|\r/).some(beginsPatch);
}

/**
 * The targets of a patch, in order. Returns undefined when the text has no `*** Begin Patch` line or
 * names no file: such a call cannot be judged, and the guard asks.
 */
export function patchTargets(patch: string): PatchTarget[] | undefined {
  const lines = patch.split(/\r?\n|\r/);
  if (!lines.some(beginsPatch)) return undefined;
  const targets: PatchTarget[] = [];
  let adding: PatchTarget | undefined;
  let added: string[] = [];
  const closeAdd = () => {
    if (adding) adding.content = added.length > 0 ? `${added.join('\n')}\n` : '';
    adding = undefined;
    added = [];
  };
  for (const line of lines) {
    const trimmed = line.trim();
    const header = headers.find(([pattern]) => pattern.test(trimmed));
    if (header) {
      closeAdd();
      const path = (header[0].exec(trimmed)?.[1] ?? '').trim();
      const target: PatchTarget = { path, action: header[1] };
      targets.push(target);
      if (header[1] === 'add') adding = target;
      continue;
    }
    if (trimmed.startsWith('***')) {
      closeAdd();
      continue;
    }
    if (adding && line.startsWith('+')) added.push(line.slice(1));
  }
  closeAdd();
  if (targets.length === 0 || targets.some((target) => target.path === '')) return undefined;
  return targets;
}
