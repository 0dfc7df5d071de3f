/** One hunk of a unified diff. `lines` start with ' ', '-' or '+', like a patch file. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

type Operation = { kind: ' ' | '-' | '+'; text: string };

/** Above this many differing lines (after trimming common ends) the changed block is shown whole. */
const maxEditScript = 4000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Myers' O(ND) shortest edit script; `undefined` when the distance exceeds the limit. */
function myers(a: readonly string[], b: readonly string[], limit: number): Operation[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, limit);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, k, offset);
    }
    v = next;
  }
  return undefined;
}

function backtrack(
  trace: Int32Array[],
  a: readonly string[],
  b: readonly string[],
  finalD: number,
  finalK: number,
  offset: number,
): Operation[] {
  const operations: Operation[] = [];
  let x = a.length;
  let y = b.length;
  let k = finalK;
  for (let d = finalD; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const previousK = down ? k + 1 : k - 1;
    const previousX = v[offset + previousK] ?? 0;
    const previousY = previousX - previousK;
    while (x > previousX + (down ? 0 : 1) && y > previousY + (down ? 1 : 0)) {
      operations.push({ kind: ' ', text: a[--x] as string });
      y--;
    }
    if (down) operations.push({ kind: '+', text: b[--y] as string });
    else operations.push({ kind: '-', text: a[--x] as string });
    k = previousK;
  }
  while (x > 0 && y > 0) {
    operations.push({ kind: ' ', text: a[--x] as string });
    y--;
  }
  return operations.reverse();
}

/**
 * A line diff of two texts as hunks with `context` unchanged lines around each change. Common ends are
 * trimmed first, so the usual small edit in a large file costs little; very different texts fall back
 * to one replaced block instead of an expensive minimal diff.
 */
export function diffLines(oldText: string, newText: string, context = 3): DiffHunk[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  if (middleA.length === 0 && middleB.length === 0) return [];
  const middle = myers(middleA, middleB, maxEditScript) ?? [
    ...middleA.map((text): Operation => ({ kind: '-', text })),
    ...middleB.map((text): Operation => ({ kind: '+', text })),
  ];
  const operations: Operation[] = [
    ...a.slice(0, prefix).map((text): Operation => ({ kind: ' ', text })),
    ...middle,
    ...a.slice(a.length - suffix).map((text): Operation => ({ kind: ' ', text })),
  ];
  return groupHunks(operations, context);
}

function groupHunks(operations: readonly Operation[], context: number): DiffHunk[] {
  // Line numbers before each operation, so a hunk's start is a lookup.
  const oldBefore = new Int32Array(operations.length + 1);
  const newBefore = new Int32Array(operations.length + 1);
  const changes: number[] = [];
  operations.forEach((operation, index) => {
    oldBefore[index + 1] = (oldBefore[index] ?? 0) + (operation.kind === '+' ? 0 : 1);
    newBefore[index + 1] = (newBefore[index] ?? 0) + (operation.kind === '-' ? 0 : 1);
    if (operation.kind !== ' ') changes.push(index);
  });
  // Changes closer than two contexts apart share a hunk, as in `diff -u`.
  const groups: Array<[number, number]> = [];
  for (const index of changes) {
    const last = groups[groups.length - 1];
    if (last && index - last[1] - 1 <= 2 * context) last[1] = index;
    else groups.push([index, index]);
  }
  return groups.map(([first, last]) => {
    const from = Math.max(0, first - context);
    const to = Math.min(operations.length, last + context + 1);
    const slice = operations.slice(from, to);
    const oldLines = slice.filter((operation) => operation.kind !== '+').length;
    const newLines = slice.filter((operation) => operation.kind !== '-').length;
    // Patch convention: an empty side starts at the line before it.
    return {
      oldStart: (oldBefore[from] ?? 0) + (oldLines === 0 ? 0 : 1),
      oldLines,
      newStart: (newBefore[from] ?? 0) + (newLines === 0 ? 0 : 1),
      newLines,
      lines: slice.map((operation) => `${operation.kind}${operation.text}`),
    };
  });
}

/** Hunks rendered as unified diff text (without file headers). */
export function formatHunks(hunks: readonly DiffHunk[]): string {
  return hunks
    .map(
      (hunk) =>
        `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n${hunk.lines.join('\n')}`,
    )
    .join('\n');
}
