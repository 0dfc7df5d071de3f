/**
 * The files a patch in the `apply_patch` envelope touches (`*** Begin Patch` … `*** End Patch`): each
 * `*** Add File: PATH`, `*** Update File: PATH`, `*** Delete File: PATH` and `*** Move to: PATH` line.
 * Every one is a write; the guard asks about each as its own Write or Edit.
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
  [/^\*\*\* Add File: (.*)$/, 'add'],
  [/^\*\*\* Update File: (.*)$/, 'update'],
  [/^\*\*\* Delete File: (.*)$/, 'delete'],
  [/^\*\*\* Move to: (.*)$/, 'move'],
];

/**
 * The targets of a patch, in order. Returns undefined when the text has no `*** Begin Patch` line or
 * names no file: such a call cannot be judged, and the guard asks.
 */
export function patchTargets(patch: string): PatchTarget[] | undefined {
  const lines = patch.split(/\r?\n/);
  if (!lines.some((line) => line.trim() === '*** Begin Patch')) return undefined;
  const targets: PatchTarget[] = [];
  let adding: PatchTarget | undefined;
  let added: string[] = [];
  const closeAdd = () => {
    if (adding) adding.content = added.length > 0 ? `${added.join('\n')}\n` : '';
    adding = undefined;
    added = [];
  };
  for (const line of lines) {
    const header = headers.find(([pattern]) => pattern.test(line));
    if (header) {
      closeAdd();
      const path = (header[0].exec(line)?.[1] ?? '').trim();
      const target: PatchTarget = { path, action: header[1] };
      targets.push(target);
      if (header[1] === 'add') adding = target;
      continue;
    }
    if (line.startsWith('*** ')) {
      closeAdd();
      continue;
    }
    if (adding && line.startsWith('+')) added.push(line.slice(1));
  }
  closeAdd();
  if (targets.length === 0 || targets.some((target) => target.path === '')) return undefined;
  return targets;
}
