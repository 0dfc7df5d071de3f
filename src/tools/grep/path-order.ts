/**
 * Compares two `/`-separated relative paths the way `rg --sort path` orders them: directory by
 * directory, each level by name (so `a/b` comes before `a-c`, because the name `a` sorts before `a-c`).
 * The JS walker visits files in this order too.
 */
export function comparePaths(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    // A separator ends a name, and a name sorts before every longer name it begins.
    if (a === 47) return -1;
    if (b === 47) return 1;
    return a - b;
  }
  return left.length - right.length;
}

/** One file's lines as ripgrep printed them (`path\0rest`, context separators inside the file kept). */
interface FileBlock {
  path: string;
  lines: string[];
  chars: number;
}

/** How much of the ordered output a search can show, so the collector holds no more than that. */
export interface PageBound {
  /** Lines skipped before the page. */
  offset: number;
  /** Lines shown (0 = no limit). */
  limit: number;
  /** Characters kept after `offset` before collecting stops. */
  maxChars: number;
}

/**
 * Collects ripgrep's `--null` output from a parallel (unsorted) search and hands it on ordered by path,
 * as `--sort path` would print it, without making ripgrep single-threaded. ripgrep writes each file's
 * lines in one piece, so lines are grouped per file; context separators between files are dropped and
 * put back between the ordered files. Only the files that can still fall inside the page are held:
 * whenever the held lines pass twice the page, the blocks are ordered and those past it are dropped.
 */
export class PathOrderedLines {
  private readonly blocks = new Map<string, FileBlock>();
  private current: FileBlock | undefined;
  private pendingSeparator = false;
  private held = 0;
  private heldChars = 0;
  /** Held amounts that trigger the next trim; doubled past what a trim keeps, so trims stay rare. */
  private trimAtLines: number;
  private trimAtChars: number;

  constructor(
    private readonly bound: PageBound,
    private readonly isHidden: (path: string) => boolean = () => false,
  ) {
    this.trimAtLines = bound.limit > 0 ? 2 * (bound.offset + bound.limit) + 1024 : Number.POSITIVE_INFINITY;
    this.trimAtChars = 2 * bound.maxChars;
  }

  /** Takes one output line; always true, so the search runs to its end. */
  readonly add = (line: string): boolean => {
    if (line === '--') {
      this.pendingSeparator = true;
      return true;
    }
    const cut = line.indexOf('\0');
    const path = cut === -1 ? this.current?.path : line.slice(0, cut);
    // A line that names no file before any file did cannot be placed; ripgrep prints none.
    if (path === undefined || this.isHidden(path)) return true;
    let block = this.current?.path === path ? this.current : this.blocks.get(path);
    if (!block) {
      block = { path, lines: [], chars: 0 };
      this.blocks.set(path, block);
    } else if (this.pendingSeparator && block === this.current) {
      block.lines.push('--');
      block.chars += 3;
      this.held++;
      this.heldChars += 3;
    }
    this.pendingSeparator = false;
    this.current = block;
    block.lines.push(line);
    block.chars += line.length + 1;
    this.held++;
    this.heldChars += line.length + 1;
    if (this.held > this.trimAtLines || this.heldChars > this.trimAtChars) this.trim();
    return true;
  };

  /** Lines held now (for tests of the bound). */
  get heldLines(): number {
    return this.held;
  }

  private ordered(): FileBlock[] {
    return [...this.blocks.values()].sort((a, b) => comparePaths(a.path, b.path));
  }

  /** Drops the files that start past the page (in lines, or in characters after the offset). */
  private trim(): void {
    const { offset, limit, maxChars } = this.bound;
    let position = 0;
    let charsAfterOffset = 0;
    this.held = 0;
    this.heldChars = 0;
    for (const block of this.ordered()) {
      const pastPage = (limit > 0 && position >= offset + limit) || charsAfterOffset > maxChars;
      if (pastPage) {
        this.blocks.delete(block.path);
        if (this.current === block) this.current = undefined;
        continue;
      }
      const size = block.lines.length + 1;
      if (position + size > offset) charsAfterOffset += block.chars;
      position += size;
      this.held += block.lines.length;
      this.heldChars += block.chars;
    }
    this.trimAtLines = Math.max(this.trimAtLines, 2 * this.held);
    this.trimAtChars = Math.max(this.trimAtChars, 2 * this.heldChars);
  }

  /**
   * Hands the lines on in path order, with `--` between files when `separateFiles` (context was
   * asked for), until `consume` returns false.
   */
  drain(consume: (line: string) => boolean, separateFiles: boolean): void {
    let first = true;
    for (const block of this.ordered()) {
      if (!first && separateFiles && !consume('--')) return;
      first = false;
      for (const line of block.lines) if (!consume(line)) return;
    }
  }
}
